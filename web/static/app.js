// The page: a chessground board fed by the server (python-chess computes the legal moves), the
// engine's info lines as they come over the websocket, and the experts' API. No rules here.
import { Chessground } from 'chessground';
import { renderAnswer } from './ask.js';
import { setupDrawOffer, showDrawOffer, updateDrawOffer } from './draws.js';
import { oriented, setupHistory, showHistory, viewing } from './history.js';
import { differencesBox, parametersFold, plainCard } from './plain.js';
import { repertoireView } from './repertoire.js';
import { onKept, resume, showGames } from './store.js';
import { measureOnTouch } from './phone.js';

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v; else if (k === 'style') node.style.cssText = v; else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
};

function showError(message) {
  const box = $('#error');
  box.textContent = message;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 8000);
}

async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const data = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(data.error || `${response.status}`);
  return data;
}

// -- tabs and experts --------------------------------------------------------------------------
for (const button of document.querySelectorAll('nav button')) {
  button.addEventListener('click', () => {
    for (const b of document.querySelectorAll('nav button')) b.classList.toggle('active', b === button);
    for (const t of document.querySelectorAll('.tab')) t.hidden = t.id !== `tab-${button.dataset.tab}`;
    if (button.dataset.tab === 'expert') showExpert($('#expert-id').value);
    if (button.dataset.tab === 'ask') askBoard.redrawAll();
  });
}

let experts = [];
async function loadExperts() {
  const data = await api('/api/experts');
  experts = data.experts;
  for (const select of document.querySelectorAll('select.experts')) {
    select.replaceChildren();
    if (select.classList.contains('optional')) select.append(el('option', { value: '' }, '(no one)'));
    for (const e of experts) {
      select.append(el('option', { value: e.id }, `${e.name}${e.elo ? ` (${e.elo})` : ''}${e.origin === 'shipped' ? '' : ` [${e.origin}]`}`));
    }
    if (!select.classList.contains('optional') && data.default) select.value = data.default;
  }
  if (state) showSettings(state.settings);  // a game taken up before the experts were listed
}

// -- play ----------------------------------------------------------------------------------------
const board = Chessground($('#board'), { movable: { free: false, color: undefined, showDests: true }, premovable: { enabled: false } });
measureOnTouch($('#board'));
let socket = null;
let state = null;
let reasons = {};  // ply -> the engine's reasons record
let clockSeen = 0;
let starting = false;  // a new game asked for, its first state not yet come: a refusal is said until the player acts
let offline = null;  // when the server was lost in a game (performance.now()): the clocks stop there; null: connected
let retry = 0;  // the timer of the next try to reach it
let idled = false;  // the server ended the game for idling: its socket's close is no reason to reconnect

function connect() {
  return new Promise((resolve, reject) => {
    socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/play`);
    socket.onopen = () => resolve(socket);
    socket.onerror = () => reject(new Error('could not reach the server'));
    socket.onclose = () => { socket = null; if (state && !state.result && !idled) lostServer(); };
    socket.onmessage = (event) => onMessage(JSON.parse(event.data));
  });
}

// The server cannot be reached in a game (it restarts, the network dropped): say so, stop the clocks where they
// were (what they are is the server's to say), allow no move or button, and ask for the game again every 2 s.
function lostServer() {
  if (offline === null) offline = performance.now();
  $('#status').textContent = 'reconnecting… (the server cannot be reached)';
  board.set({ movable: { color: undefined } });
  for (const id of ['#takeback', '#resign', '#draw', '#offer-draw']) $(id).disabled = true;
  clearTimeout(retry);
  retry = setTimeout(() => connect().then(() => resume(send)).catch(lostServer), 2000);
}

async function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) await connect();
  socket.send(JSON.stringify(message));
}

function onMessage(m) {
  if (onKept(m)) return;  // the game's id and token, kept for a reload (store.js)
  if (m.type === 'state') { starting = idled = false; offline = null; clockSeen = performance.now(); showState(m); }
  else if (m.type === 'info') showInfo(m);
  else if (m.type === 'reasons') { reasons[m.ply] = m; renderReasons(); }
  else if (m.type === 'error' && starting) refused(m.message);
  else if (m.type === 'error' && offline !== null) { showError(m.message); $('#status').textContent = `disconnected: ${m.message}`; }
  else if (m.type === 'error') { showError(m.message); if (state) showState(state); }
  else if (m.type === 'closed') { idled = true; showError(m.message); $('#status').textContent = m.message; }
  else if (m.type === 'draw_offer') showDrawOffer(m);
}

function showState(s) {
  if (!state || state.game !== s.game) showSettings(s.settings);  // a reloaded page: the game's, not the defaults
  state = s;  // redrawn after an error too: the clocks run on from when the state came
  for (const ply of Object.keys(reasons)) if (Number(ply) >= s.plies) delete reasons[ply];
  const last = s.last ? [s.last.slice(0, 2), s.last.slice(2, 4)] : undefined;
  const dests = new Map(Object.entries(s.dests));
  board.set({
    fen: s.fen, orientation: oriented(s.human), turnColor: s.turn, lastMove: last, check: s.check,
    movable: { free: false, color: s.result || s.thinking ? undefined : s.human, dests, showDests: true,
      events: { after: onHumanMove } },
  });
  const moves = $('#moves');
  moves.replaceChildren();
  s.numbered.forEach((label, i) => {  // numbered by the server from the game's own move numbers
    const after = i > 0 && label.includes('…');  // Black's move beside White's: "1. Nf3 d5", not "1. Nf3 1… d5"
    moves.append(el('li', { class: reasons[i] ? 'engine' : '', 'data-ply': i }, after ? s.moves[i] : label));
  });
  moves.scrollTop = moves.scrollHeight;
  let status = s.result ? `Game over: ${s.result} (${s.termination})`
    : s.thinking ? `${s.expert} is thinking…` : s.turn === s.human ? 'Your move' : '';
  if (s.can_claim_draw) status += ' — you may claim a draw';
  $('#status').textContent = status;
  $('#draw').disabled = !s.can_claim_draw;
  updateDrawOffer(s);
  $('#takeback').disabled = Boolean(s.result || s.thinking) || s.plies === 0;
  $('#resign').disabled = Boolean(s.result);
  $('#pgn').href = `/api/games/${s.game}/pgn`;
  $('#pgn').hidden = false;
  if (!s.thinking) $('#thinking').textContent = '';
  renderReasons();
  showHistory(s);
  tickClocks();
}

function tickClocks() {
  if (!state) return;
  const c = state.clock;
  const spent = state.result ? 0 : (offline ?? performance.now()) - clockSeen;
  const left = (side) => Math.max(0, c[side] - (c.running === side ? spent : 0));
  const text = (ms) => { const s = Math.ceil(ms / 1000); return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`; };
  const top = state.human === 'white' ? 'black' : 'white';
  for (const [id, side] of [['#clock-top', top], ['#clock-bottom', state.human]]) {
    const node = $(id);
    node.textContent = `${side === state.human ? 'You' : state.expert} · ${text(left(side))}`;
    node.classList.toggle('running', c.running === side);
  }
}
setInterval(tickClocks, 250);

function onHumanMove(orig, dest) {
  const piece = board.state.pieces.get(dest);
  const promoting = piece && piece.role === 'pawn' && (dest[1] === '8' || dest[1] === '1');
  if (!promoting) { send({ type: 'move', uci: orig + dest }); return; }
  const dialog = $('#promotion');
  dialog.onclose = () => {
    if (dialog.returnValue) send({ type: 'move', uci: orig + dest + dialog.returnValue });
    else showState(state);  // chooser dismissed: the pawn goes back
  };
  for (const b of dialog.querySelectorAll('button')) b.onclick = () => dialog.close(b.value);
  dialog.returnValue = '';
  dialog.showModal();
}

function showInfo(m) {  // how far the think got: the server sends no line or score during a game (a hint)
  const info = m.info;
  if (info.depth !== undefined) {
    $('#thinking').textContent = `depth ${info.depth}${info.nodes !== undefined ? `, ${info.nodes} nodes` : ''}`;
  }
}

// The new game was refused (too many games, the engine did not start): said under the board until the player
// acts, not only in the banner that fades, with a button that asks again.
function refused(message) {
  starting = false;
  const again = el('button', { type: 'button', id: 'retry' }, 'Try again');
  again.onclick = () => $('#new-game').requestSubmit();
  $('#status').replaceChildren(`No game: ${message} `, again);
  showError(message);
}

$('#new-game').addEventListener('submit', async (event) => {
  event.preventDefault();
  const f = new FormData(event.target);
  reasons = {};
  const message = { type: 'new', expert: f.get('expert'), colour: f.get('colour'), minutes: Number(f.get('minutes')),
    moves: Number(f.get('moves')), increment: Number(f.get('increment')),
    elo: f.get('strength') === 'elo' ? Number(f.get('elo')) : null };
  if (f.get('fen')) {  // "Play from here" is for this game only: the next starts from the start again
    message.fen = f.get('fen');
    event.target.elements.fen.value = '';
    $('#start-from').textContent = '';
  }
  $('#status').textContent = 'starting the engine…';
  starting = true;
  try { await send(message); } catch (e) { refused(e.message); }
});
// The New game form: a usual clock fills the boxes (any box changed by hand is "your own"); the Elo box only
// where the strength is limited; and, for a game taken up again, what that game was started with.
const form = $('#new-game').elements;
const showElo = () => { form.elo.hidden = form.strength.value !== 'elo'; };
form.strength.addEventListener('change', showElo);
form.preset.addEventListener('change', () => {
  if (!form.preset.value) return;
  [form.moves.value, form.minutes.value, form.increment.value] = form.preset.value.split(' ');
});
const presetOf = () => {
  const value = `${Number(form.moves.value)} ${Number(form.minutes.value)} ${Number(form.increment.value)}`;
  return [...form.preset.options].some((o) => o.value === value) ? value : '';
};
for (const box of [form.moves, form.minutes, form.increment]) box.addEventListener('input', () => { form.preset.value = presetOf(); });
function showSettings(settings) {
  if (!settings) return;
  form.expert.value = settings.expert;
  form.colour.value = settings.colour;
  [form.moves.value, form.minutes.value, form.increment.value] = [settings.moves, settings.minutes, settings.increment];
  form.preset.value = presetOf();
  form.strength.value = settings.elo === null ? 'expert' : 'elo';
  if (settings.elo !== null) form.elo.value = settings.elo;
  showElo();
}

$('#takeback').onclick = () => send({ type: 'takeback' });
$('#resign').onclick = () => { if (confirm('Resign this game?')) send({ type: 'resign' }); };
$('#draw').onclick = () => send({ type: 'draw' });
setupDrawOffer(send);
setupHistory({ board, state: () => state, reasons: () => reasons, card: reasonCard, redraw: () => state && showState(state) });

// -- the reasons ----------------------------------------------------------------------------------
function bars(title, ranked) {
  if (!ranked || !ranked.moves.length) return null;
  const box = el('div', { class: 'bars' }, el('h4', {}, title));
  for (const m of ranked.moves) {
    box.append(el('div', { class: 'bar' }, el('span', { class: 'san' }, m.san),
      el('span', { class: 'fill', style: `width:${Math.max(m.share, 1)}%` }), el('span', { class: 'pct' }, `${m.share}%`)));
  }
  if (ranked.more) box.append(el('div', { class: 'more' }, `and ${ranked.more} more`));
  return box;
}

function miniBoard(fen, move) {
  const node = el('div', { class: 'mini' });
  requestAnimationFrame(() => Chessground(node, { fen, viewOnly: true, coordinates: false,
    lastMove: move ? [move.slice(0, 2), move.slice(2, 4)] : undefined }));
  return node;
}

// A case's own position (Experts.case) on a small board, its move marked and said beneath it after `words`.
function casePosition(p, words) {
  return [miniBoard(p.fen, p.uci), el('p', { class: 'small' }, `${words} ${p.san} (case ${p.case})`)];
}

// The page's own words for the record's reasons (docs/explain.md): nothing here reads the engine's.
const WHY = { case: 'the most similar case\'s move', argmax: 'the prior\'s likeliest sound move',
  sample: 'drawn by the prior among the sound moves', calibrated: 'drawn by the expert\'s error model',
  likely: 'the error model\'s likeliest move', search: 'the search\'s best move', tables: 'the endgame tables\' move',
  random: 'drawn at random', engine: 'the engine\'s own move' };

function playedText(p) {
  const byChooser = p.reason === 'calibrated' ? 'drawn by the chooser at the expert\'s strength'
    : 'the chooser\'s likeliest move';
  let text = `Played ${p.san}: ${p.chooser ? byChooser : WHY[p.reason] ?? p.reason}`;
  if (p.share !== undefined) text += ` (${p.share}% of the prior)`;
  if (p.top && p.top !== p.san) text += `; the prior's first choice was ${p.top} (${p.top_share}%)`;
  if (p.case_move) text += `; the case's move was ${p.case_move}`;
  return text + '.';
}

function verdictText(v) {
  if (v.score === null) return `stopped after ${v.nodes} nodes, before depth 1`;
  let text = `depth ${v.depth}, ${v.nodes} nodes${v.by === 'search' ? '' : `, ${v.seconds.toFixed(2)} s`}: best ${v.best} (${v.score} for the side to move)`;
  if (v.proposed) text += `; ${v.sound} of ${v.proposed} proposed moves sound (within ${v.tolerance} cp)`;
  return text;
}

function reasonCard(record) {
  const r = record.reasons;
  const card = el('article', { class: 'reason', 'data-ply': record.ply }, el('h3', {}, record.label));
  if (r.played) card.append(el('p', { class: 'played' }, playedText(r.played)));
  if (r.played && r.played.loss !== undefined) {
    card.append(el('p', { class: 'loss' }, `It loses ${r.played.loss}% of the expected score; ` +
      (r.played.often !== null ? `${r.played.expert} loses that much or more in ${r.played.often}% of ${r.played.phase} moves.` : '')));
  }
  const c = r.case, p = record.position;
  if (c) {
    const where = p ? `${p.white} – ${p.black}, ${p.event}, ${p.year}, move ${p.move}`
      : `${c.white} – ${c.black}, ${c.event}, ${c.date.slice(0, 4)}, move ${c.move}`;
    const box = el('div', { class: 'case' }, el('p', {}, el('strong', {}, `From ${c.expert}'s game: `), where,
      ` (similarity ${c.similarity}/256)`));
    if (p) box.append(...casePosition(p, 'there the expert played'));
    card.append(box);
  }
  if (r.prior) {
    const row = el('div', { class: 'priors' });
    for (const b of [bars('style model', r.prior.proposes), bars(`${r.prior.cases} cases vote`, r.prior.votes),
      bars('prior', r.prior.prior)]) if (b) row.append(b);
    card.append(row);
    if (r.prior.model && r.prior.cases && !r.prior.voting) {
      card.append(el('p', { class: 'small' }, `${r.prior.cases} near cases, none of them this position: no votes`));
    }
  }
  if (r.verdict) card.append(el('p', { class: 'verdict' }, el('strong', {}, r.verdict.by === 'search' ? 'Search: ' : `Judge ${r.verdict.by}: `), verdictText(r.verdict)));
  if (r.similarity) {
    const s = r.similarity;
    card.append(el('p', { class: 'small' }, `similarity ${s.similarity}/256; ${s.tied} of ${s.count} cases tied at best`));
  }
  for (const note of r.notes) card.append(el('p', { class: 'small' }, note));
  // the precedent's position beside the sentences that name it (issue #61), not folded with the numbers
  const q = record.precedent_position;
  return plainCard(card, record, q ? el('div', { class: 'case precedent' }, ...casePosition(q, 'the precedent: the expert played')) : null);
}

function renderReasons() {
  if (viewing()) return;  // an earlier move is shown with its reasons (history.js)
  const box = $('#reasons');
  const plies = Object.keys(reasons).map(Number).sort((a, b) => b - a);
  if (!plies.length) return;
  const fold = parametersFold(plies.map((ply) => reasons[ply]));
  box.replaceChildren(...(fold ? [fold] : []), ...plies.map((ply) => reasonCard(reasons[ply])));
}

// -- ask the expert -------------------------------------------------------------------------------
const askBoard = Chessground($('#ask-board'), { viewOnly: true });
let askPositions = [{ ply: 0, san: null, fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' }];

function showAskPosition() {
  const p = askPositions[Number($('#ask-ply').value)];
  askBoard.set({ fen: p.fen, turnColor: p.fen.split(' ')[1] === 'w' ? 'white' : 'black' });
  $('#ask-ply-text').textContent = p.san ? `after ${p.san} (ply ${p.ply})` : 'start';
}
$('#ask-ply').addEventListener('input', showAskPosition);
$('#ask-file').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  if (file) $('#ask-text').value = await file.text();
});
$('#ask-load').onclick = async () => {
  const text = $('#ask-text').value.trim();
  const isFen = /^[1-8pnbrqkPNBRQK/]+ [wb] /.test(text);
  try {
    const data = await api('/api/position', isFen ? { fen: text } : { pgn: text });
    askPositions = data.positions;
    $('#ask-ply').max = askPositions.length - 1;
    $('#ask-ply').value = askPositions.length - 1;
    showAskPosition();
  } catch (e) { showError(e.message); }
};
$('#ask-go').onclick = async () => {
  const fen = askPositions[Number($('#ask-ply').value)].fen;
  const ids = [$('#ask-a').value, $('#ask-b').value].filter(Boolean);
  const out = $('#ask-answers');
  out.replaceChildren(el('p', {}, 'asking…'));
  try {
    const data = await api('/api/ask', { fen, experts: ids });
    out.replaceChildren(...data.answers.map((a) => renderAnswer(a, { el, playedText, showError,
      ask: async () => (await api('/api/ask', { fen, experts: [a.expert], lines: 1, ratings: true })).answers[0] })));
    const differs = differencesBox(data.differences);
    if (differs) out.append(differs);
  } catch (e) { out.replaceChildren(); showError(e.message); }
};
$('#ask-play').onclick = () => {
  const fen = askPositions[Number($('#ask-ply').value)].fen;
  document.querySelector('#new-game [name=fen]').value = fen;
  document.querySelector('#new-game [name=expert]').value = $('#ask-a').value;
  $('#start-from').textContent = `from ${fen}`;
  document.querySelector('nav button[data-tab=play]').click();
};

// -- the expert's page ----------------------------------------------------------------------------
let expertShown = 0;  // the latest request: an earlier expert's slower answer must not overwrite it
async function showExpert(id) {
  if (!id) return;
  const mine = ++expertShown;
  try {
    const f = await api(`/api/experts/${encodeURIComponent(id)}`);
    if (mine !== expertShown) return;
    const fm = (moves) => moves.map(([san, n]) => `${san} ${n}`).join(', ') || 'none';
    const rows = [['Expert', f.name], ['Median Elo', f.elo ?? 'unknown'], ['Games', f.games],
      ['Cases', `${f.cases} (${f.cases_white} as White, ${f.cases_black} as Black)`], ['Distinct positions', f.positions],
      ['First moves as White', fm(f.first_moves.white)], ['First moves as Black', fm(f.first_moves.black)],
      ['Sources', f.sources.map((s) => `${s.name} (${s.games} games)`).join(', ')], ['Error profile', f.profile_line],
      ['Tendencies', f.tendencies]];
    $('#expert-facts').replaceChildren(el('table', {}, ...rows.map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, String(v))))));
    const profile = $('#expert-profile');
    profile.replaceChildren(f.profile ? el('p', { class: 'small' }, 'drawing the profile…') : el('p', {}, 'no error profile'));
    if (f.profile) {
      const img = el('img', { src: `/api/experts/${encodeURIComponent(id)}/profile.png`, alt: `${f.name}'s error profile` });
      img.onload = () => profile.replaceChildren(img);
      img.onerror = () => profile.replaceChildren(el('pre', {}, JSON.stringify(f.profile, null, 1)));
    }
    $('#expert-repertoire').replaceChildren(el('p', {}, 'replaying the games…'));
    const rep = await api(`/api/experts/${encodeURIComponent(id)}/repertoire`);
    if (mine !== expertShown) return;
    $('#expert-repertoire').replaceChildren(...repertoireView(rep));
  } catch (e) { showError(e.message); }
}
$('#expert-id').addEventListener('change', (event) => showExpert(event.target.value));

loadExperts().then(showAskPosition).catch((e) => showError(e.message));
resume(send).catch((e) => showError(e.message));  // the game of the last visit, if the server still has it
showGames();
