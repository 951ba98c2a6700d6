// The expert's repertoire (issue #41, item 16): two trees of the expert's first moves, each move with
// its games, its share of the games at its parent and the expert's score in them; a click on a move
// shows its position on the board beside the trees.
import { Chessground } from 'chessground';
import { make } from './dom.js';

function label(n) {
  const score = n.score === null ? '' : `, scores ${n.score}%`;
  return `${n.san} — ${n.games} game${n.games === 1 ? '' : 's'} (${n.share}%${score})`;
}

function tree(nodes, depth, show) {
  const list = make('ul', {});
  for (const n of nodes) {
    const move = make('span', { class: 'move', title: n.fen }, label(n));
    move.onclick = () => show(n.fen);
    const item = make('li', {});
    if (n.next.length) {
      item.append(make('details', depth < 1 ? { open: '' } : {}, make('summary', {}, move), tree(n.next, depth + 1, show)));
    } else item.append(move);
    list.append(item);
  }
  return list;
}

// The trees of /api/experts/ID/repertoire and the board they show their positions on.
export function repertoireView(rep) {
  const boardBox = make('div', { class: 'repertoire-board' });
  const board = Chessground(boardBox, { fen: '8/8/8/8/8/8/8/8', viewOnly: true, coordinates: false });  // empty until a move is clicked
  const show = (fen) => board.set({ fen });
  return [make('div', {}, make('h3', {}, 'As White'), tree(rep.white, 0, show)),
    make('div', {}, make('h3', {}, 'As Black'), tree(rep.black, 0, show)), boardBox];
}
