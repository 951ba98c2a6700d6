// The game kept across reloads: its id and secret token in localStorage (only the token's holder may take
// the game back: web/keeper.py), asked for again when the page loads; and the finished games the server
// keeps, listed with a download link to each one's PGN.
const KEY = 'cbr-chess.game';

// Whether the message was the store's own ("kept": the game the server holds for this tab). A state at
// the end forgets the game (nothing to take back) and lists it among the finished ones.
export function onKept(m) {
  if (m.type === 'kept') {
    localStorage.setItem(KEY, JSON.stringify({ game: m.game, token: m.token }));
    return true;
  }
  if (m.type === 'state' && m.result) {
    localStorage.removeItem(KEY);
    showGames();
  }
  return false;
}

// Ask once for the game of the last visit: forgotten until the server says it holds it again.
export async function resume(send) {
  const kept = JSON.parse(localStorage.getItem(KEY) || 'null');
  localStorage.removeItem(KEY);
  if (kept && kept.game && kept.token) await send({ type: 'resume', game: kept.game, token: kept.token });
}

const moves = (n) => `${n} move${n === 1 ? '' : 's'}`;

// The finished games, newest first (kept as they were when the server cannot be reached).
export async function showGames() {
  const response = await fetch('/api/games').catch(() => null);
  if (!response || !response.ok) return;
  const { games } = await response.json();
  const items = games.map((g) => {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = `/api/games/${encodeURIComponent(g.id)}/pgn`;
    link.setAttribute('download', '');
    link.textContent = 'PGN';
    item.append(`${g.date}: you (${g.human}) against ${g.expert}, ${g.result} (${g.termination}), ` +
      `${moves(Math.ceil(g.plies / 2))} `, link);
    return item;
  });
  document.querySelector('#games').replaceChildren(...items);
  document.querySelector('#past').hidden = !games.length;
}
