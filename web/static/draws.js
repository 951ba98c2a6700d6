// Offering the expert a draw: the button beside "Claim draw", and the expert's answer (web/draws.py
// decides; the page shows why it declined or that it accepted).
const button = document.createElement('button');
button.id = 'offer-draw';
button.textContent = 'Offer draw';
button.disabled = true;
let plies = 0;  // the plies of the last state: an answer stays shown until a move is made

// The button, placed after "Claim draw"; each click sends the offer over the game's websocket.
export function setupDrawOffer(send) {
  document.querySelector('#draw').after(button);
  button.onclick = () => send({ type: 'offer_draw' });
}

// Offered only on the human's move in a game going on (the server checks it too).
export function updateDrawOffer(s) {
  button.disabled = Boolean(s.result || s.thinking) || s.turn !== s.human;
  plies = s.plies;
  const line = document.querySelector('#draw-offer');
  if (line && Number(line.dataset.plies) !== plies) line.textContent = '';
}

// The expert's answer, under the board until the next state.
export function showDrawOffer(m) {
  const status = document.querySelector('#status');
  let line = document.querySelector('#draw-offer');
  if (!line) {
    line = document.createElement('div');
    line.id = 'draw-offer';
    status.after(line);
  }
  line.textContent = m.why;
  line.dataset.plies = plies;
  line.className = m.accepted ? 'accepted' : 'declined';
}
