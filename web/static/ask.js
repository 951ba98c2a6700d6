// Ask the expert's answer (web/ask.py) in a player's words (issue #53): the likeliest move and why, every
// candidate's chance (the calibrated choice's; without a judge, the prior's share) with its score and what it
// loses, the candidates that lose a lot marked, the record's own numbers folded, and a rating slider: the
// chances at several ratings, asked for once (one engine session for them all), then shown as the slider moves.

// The candidates as a table: how often the expert plays each (a bar), its score for the side to move, what it loses.
function candidateTable(answer, el) {
  const chances = answer.candidates.some((c) => c.chance !== null);
  const table = el('table', { class: 'candidates' }, el('tr', {}, el('th', {}, 'move'),
    el('th', {}, chances ? 'chance' : 'liked'), el('th', {}, 'score for the side to move'), el('th', {}, 'loses')));
  for (const c of answer.candidates) {
    const pct = chances ? c.chance : c.share;
    table.append(el('tr', { class: c.losing ? 'losing' : '', 'data-san': c.san }, el('td', {}, c.san),
      el('td', {}, el('span', { class: 'fill', style: `width:${Math.max(pct ?? 0, 1)}%` }), ` ${pct ?? '?'} %`),
      el('td', {}, c.score ?? 'not scored'),
      el('td', {}, c.loss === null ? '' : `${c.loss} cp${c.losing ? ' — loses a lot' : ''}`)));
  }
  const more = answer.more ? el('p', { class: 'small' }, `and ${answer.more} more`
    + (answer.more_chance !== null ? ` (${answer.more_chance} % together)` : '')) : null;
  const box = el('div', {}, el('p', { class: 'small' }, chances
    ? 'how often the expert would play each move here in a game'
    : 'no judge: how much the expert\'s ideas favour each move (it plays the sound move they favour most)'), table);
  if (more) box.append(more);
  return box;
}

// The words of the engine's own record, folded: what chose the move and each candidate's share of the prior.
function numbersFold(answer, el, playedText) {
  const fold = el('details', { class: 'numbers' }, el('summary', {}, 'the numbers'));
  if (answer.reasons.played) fold.append(el('p', { class: 'played' }, playedText(answer.reasons.played)));
  const shares = answer.candidates.filter((c) => c.chance !== null && c.share !== null);
  if (shares.length) fold.append(el('p', { class: 'small' }, `share of the prior: ${shares.map((c) => `${c.san} ${c.share}%`).join(', ')}`));
  return fold;
}

// The headline in a player's words, as the game's cards say it: "Magnus Carlsen would most likely play Be2 (42 %)".
function headline(a) {
  if (!a.best) return `${a.name}: ${a.over ? `game over ${a.over}` : 'no move'}`;
  const best = a.candidates.find((c) => c.san === a.best);
  const chance = best && best.chance !== null ? best.chance : null;
  return chance === null ? `${a.name} would play ${a.best}` : `${a.name} would most likely play ${a.best} (${chance} %)`;
}

// The slider over the ratings of one answer (``rated``: the answer asked again with its ratings).
function ratingSlider(rated, el) {
  const ratings = rated.ratings;
  const slider = el('input', { type: 'range', class: 'rating', min: 0, max: ratings.length - 1, step: 1,
    value: ratings.length - 1 });
  const label = el('span', {});
  const shown = el('div', {});
  const show = () => {
    const r = ratings[Number(slider.value)];
    label.textContent = `Elo ${r.elo}: ${r.best ?? 'no move'}`;
    shown.replaceChildren(candidateTable(r, el));
  };
  slider.addEventListener('input', show);
  show();
  return el('div', { class: 'by-rating' }, el('label', {}, 'Rating ', slider, ' ', label), shown);
}

// One expert's answer: the headline and the record's sentences (web/plain.py), the candidates' chances, the
// record's own numbers folded; ``ask()`` asks again for this expert with the ratings.
export function renderAnswer(a, { el, playedText, ask, showError }) {
  const box = el('div', { class: 'answer' }, el('h3', {}, headline(a)));
  if (!a.best) return box;
  if (a.plain && a.plain.length) box.append(el('ul', { class: 'plain' }, ...a.plain.map((line) => el('li', {}, line))));
  box.append(candidateTable(a, el), numbersFold(a, el, playedText));
  const button = el('button', { class: 'ask-ratings' }, 'By rating');
  button.onclick = async () => {
    button.disabled = true;
    button.textContent = 'asking at every rating…';
    try { button.replaceWith(ratingSlider(await ask(), el)); } catch (e) {
      button.disabled = false;
      button.textContent = 'By rating';
      showError(e.message);
    }
  };
  box.append(button);
  return box;
}
