// Ask the expert's answer (web/ask.py): the likeliest move, every candidate's chance (the calibrated
// choice's; without a judge, the prior's share) with its score and what it loses, the candidates that
// lose a lot marked, and a rating slider: the chances at several ratings, asked for once (one engine
// session for them all), then shown as the slider moves.

// The candidates as a table: chance (a bar), share of the prior, score for the side to move, loss.
function candidateTable(answer, el) {
  const chances = answer.candidates.some((c) => c.chance !== null);
  const table = el('table', { class: 'candidates' }, el('tr', {}, el('th', {}, 'move'),
    el('th', {}, chances ? 'chance' : 'prior'), el('th', {}, 'score for the side to move'), el('th', {}, 'loses')));
  for (const c of answer.candidates) {
    const pct = chances ? c.chance : c.share;
    table.append(el('tr', { class: c.losing ? 'losing' : '', 'data-san': c.san }, el('td', {}, c.san),
      el('td', {}, el('span', { class: 'fill', style: `width:${Math.max(pct ?? 0, 1)}%` }), ` ${pct ?? '?'}%`
        + (chances && c.share !== null ? ` (prior ${c.share}%)` : '')),
      el('td', {}, c.score ?? 'not scored'),
      el('td', {}, c.loss === null ? '' : `${c.loss} cp${c.losing ? ' — loses a lot' : ''}`)));
  }
  const more = answer.more ? el('p', { class: 'small' }, `and ${answer.more} more`
    + (answer.more_chance !== null ? ` (${answer.more_chance}% together)` : '')) : null;
  const box = el('div', {}, el('p', { class: 'small' }, chances
    ? 'each candidate\'s chance in the expert\'s calibrated choice (what it draws from in a game)'
    : 'no judge: the prior\'s shares (the engine plays the sound move the prior likes best)'), table);
  if (more) box.append(more);
  return box;
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

// One expert's answer; ``ask()`` asks again for this expert with the ratings.
export function renderAnswer(a, { el, playedText, ask, showError }) {
  const best = a.candidates.find((c) => c.san === a.best);
  const likely = best && best.chance !== null ? ` (${best.chance}% likely)` : '';
  const box = el('div', { class: 'answer' }, el('h3', {}, `${a.name}: ${a.best ?? (a.over ? `game over ${a.over}` : 'no move')}${likely}`));
  if (!a.best) return box;
  box.append(candidateTable(a, el));
  if (a.reasons.played) box.append(el('p', { class: 'played' }, playedText(a.reasons.played)));
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
