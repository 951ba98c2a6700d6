// Stepping through the game: a move of the list clicked, or the arrow keys, show the board after that
// move and its reasons; End or Escape go back to the live position (Home: the start). The board can be
// flipped; moves, captures and checks sound unless the switch is off. Above the list, the opening's
// ECO code and name; each move's clock (the mover's time left after it) in the move's tooltip. The
// positions come in the server's state (python-chess's FENs): nothing here knows the rules.

const $ = (sel) => document.querySelector(sel);
const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
// From the plies shown (or all of them, live) to the plies to show; past the last is live.
const KEYS = { ArrowLeft: (at) => at - 1, ArrowRight: (at) => at + 1, Home: () => 0, End: () => Infinity, Escape: () => Infinity };
// Each sound's pitch (Hz) and length (s): a move, a capture (lower, longer), a check (higher).
const TONES = { move: [520, 0.07], capture: [260, 0.12], check: [880, 0.18] };

let page = null;  // the page's board, its state, its reasons, how it draws a reason and redraws the game
let view = null;  // the plies shown (0: the start position), null: the live position
let flipped = false;
let heard = null;  // the game and plies of the last state, to sound only a move just played
let audio = null;

export function setupHistory(options) {
  page = options;
  document.addEventListener('keydown', onKey);
  $('#flip').onclick = () => { flipped = !flipped; page.redraw(); };
  const sound = $('#sound');
  sound.checked = localStorage.getItem('cbr-chess-sound') !== 'off';
  sound.onchange = () => localStorage.setItem('cbr-chess-sound', sound.checked ? 'on' : 'off');
}

// The side at the bottom of the board: the human's, unless flipped.
export function oriented(human) {
  return flipped === (human === 'white') ? 'black' : 'white';
}

// Whether an earlier position is shown (the reasons panel is then this module's).
export function viewing() {
  return view !== null;
}

function onKey(event) {
  const s = page.state();
  if (!s || !(event.key in KEYS) || $('#tab-play').hidden || event.target.closest('input:not([type=checkbox]), textarea, select, dialog')) return;
  event.preventDefault();
  go(KEYS[event.key](view ?? s.plies));
}

function go(plies) {
  const s = page.state();
  const next = plies >= s.plies ? null : Math.max(0, plies);
  if (next === view) return;
  view = next;
  page.redraw();
}

function clockText(ms) {
  const t = Math.ceil(ms / 1000);
  return `${Math.floor(t / 3600)}:${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}`;
}

// After the page drew the live state: the opening, the moves' clocks and clicks, a sound for a move
// just played, and the position stepped to drawn over the live one.
export function showHistory(s) {
  if (heard && heard.game !== s.game) view = null;  // a new game starts live
  if (view !== null && view >= s.plies) view = null;  // taken back past it
  sound(s);
  $('#opening').textContent = s.opening ? `${s.opening.eco} ${s.opening.name}` : '';
  $('#board').parentElement.classList.toggle('flipped', flipped);
  document.querySelectorAll('#moves li').forEach((li, i) => {
    if (s.clocks[i] !== undefined) li.title = `${clockText(s.clocks[i])} left after this move`;
    li.onclick = () => go(i + 1);
    li.classList.toggle('viewed', view === i + 1);
  });
  if (view === null) return;
  const fen = view ? s.fens[view - 1] : (s.start_fen ?? START);
  const uci = view ? s.ucis[view - 1] : null;
  page.board.set({ fen, turnColor: fen.split(' ')[1] === 'w' ? 'white' : 'black', check: view > 0 && /[+#]$/.test(s.moves[view - 1]),
    lastMove: uci ? [uci.slice(0, 2), uci.slice(2, 4)] : undefined, movable: { color: undefined, dests: new Map() } });
  const where = document.createElement('p');
  where.className = 'viewing';
  where.textContent = `${view ? `After ${s.numbered[view - 1]}` : 'The start'}: ← → step through the game, End or Esc back to it.`;
  const record = page.reasons()[view - 1];
  const none = document.createElement('p');
  none.className = 'hint';
  none.textContent = view ? 'Your move: the expert\'s moves come with reasons.' : '';
  $('#reasons').replaceChildren(where, record ? page.card(record) : none);
}

function sound(s) {
  const last = heard;
  heard = { game: s.game, plies: s.plies };
  if (!last || last.game !== s.game || s.plies !== last.plies + 1 || !$('#sound').checked) return;
  const san = s.moves[s.plies - 1];
  const [hz, seconds] = TONES[/[+#]$/.test(san) ? 'check' : san.includes('x') ? 'capture' : 'move'];
  audio ??= new AudioContext();
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.frequency.value = hz;
  gain.gain.setValueAtTime(0.2, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + seconds);
  tone.connect(gain).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + seconds);
}
