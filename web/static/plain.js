// A move's reasons in plain words first, the numbers one click away (issue #41, item 14): the
// server words the record (web/plain.py); here its sentences lead the card, the card's numbers go
// into a fold, and what is the same for every move (the models' parameters) is shown once.
import { make } from './dom.js';

// The card (its heading first) led by the record's sentences and what goes `beside` them (null: nothing),
// its numbers folded beneath them.
export function plainCard(card, record, beside = null) {
  const lines = record.plain ? record.plain.lines : [];
  if (!lines.length) return card;
  const numbers = make('details', { class: 'numbers' }, make('summary', {}, 'the numbers'));
  numbers.append(...[...card.children].slice(1));
  card.append(make('ul', { class: 'plain' }, ...lines.map((line) => make('li', {}, line))), ...(beside ? [beside] : []), numbers);
  return card;
}

// The parameters of the game's models, once, from the latest record that has them (null: none).
export function parametersFold(records) {
  const found = records.map((r) => (r.plain ? r.plain.parameters : {})).find((p) => Object.keys(p).length);
  if (!found) return null;
  const list = make('dl', {});
  for (const [key, value] of Object.entries(found)) list.append(make('dt', {}, key), make('dd', {}, value));
  return make('details', { class: 'parameters' }, make('summary', {}, 'the models\' parameters'), list);
}

// What differs between two experts asked about one position (web/differ.py; null: one expert).
export function differencesBox(lines) {
  if (!lines || !lines.length) return null;
  return make('div', { class: 'answer differences' }, make('h3', {}, 'What differs'),
    make('ul', {}, ...lines.map((line) => make('li', {}, line))));
}
