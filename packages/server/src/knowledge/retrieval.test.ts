import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildIndex, type IndexRow } from './knowledge-index.ts';
import { analyzerFor, MAX_WORD_LENGTH } from './lexicon/analyzer.ts';
import type { AgentMessage } from '../agent/engine.ts';
import { ANSWER_THRESHOLD, decide, fallbacksInARow } from '../agent/engines/knowledge-base-engine.ts';
import { questionKeys } from './normalize.ts';
import {
  ANSWER_RULES,
  confidence,
  correctSpelling,
  createRetriever,
  MAX_CORRECTED_WORDS,
  MAX_QUERY_CHARS,
  MAX_QUERY_WORDS,
  queryTerms,
  queryText,
  rankEntries,
  ruleConfidence,
  ruleFeatures,
  STRONG_AGREEMENT,
  strongAgreement,
  topicMargins,
  type RetrievedEntry,
} from './retrieval.ts';

function row(id: string, question: string, answer: string, synonyms: string[] = [], at = 0): IndexRow {
  return { id, question, synonyms, answer, keys: questionKeys(question, synonyms), updatedAt: new Date(at), questionVectors: null, answerVector: null };
}

const ROWS = [
  row('ship', 'How long does shipping take?', 'Shipping takes 3 to 5 business days.'),
  row('pay', 'What payment methods do you accept?', 'We accept cards, PayPal and bank transfer.'),
  row('child', 'Do you sell clothes for children?', 'Yes, from size 86 to 164.'),
];

test('English: Snowball stop words, irregular forms lemmatized before Porter2', () => {
  const english = analyzerFor('en');
  assert.deepEqual(english.words("Where's my order? I didn't get it"), ['order', 'get']);
  assert.equal(english.term('children'), english.term('child'));
  assert.equal(english.term('bought'), english.term('buy'));
  assert.equal(english.term('shipping'), english.term('ships'));
  assert.ok(english.related('purchase').includes('buy'));
  assert.equal(english.isDictionaryWord('parcel'), true);
  assert.equal(english.isDictionaryWord('paymnet'), false);
});

test('Russian: its stop words and Snowball stemmer; no WordNet', () => {
  const russian = analyzerFor('ru');
  assert.deepEqual(russian.words('Как мне отследить заказ?'), ['отследить', 'заказ']);
  assert.equal(russian.term('доставки'), russian.term('доставка'));
  assert.deepEqual(russian.related('доставка'), []);
  assert.equal(russian.english, false);
});

test('a misspelled word becomes the closest word of the base: 1 edit up to 7 letters, 2 above', () => {
  const index = buildIndex('en', ROWS);
  assert.equal(correctSpelling(index, 'shiping'), 'shipping');
  assert.equal(correctSpelling(index, 'paymnet'), 'payment');
  assert.equal(correctSpelling(index, 'tranfsre'), 'transfer');
  assert.equal(correctSpelling(index, 'shpng'), undefined);
  assert.equal(correctSpelling(index, 'zz'), undefined);
  const { groups, unknownShare } = queryTerms(index, 'how long does shiping tkae');
  assert.ok(groups.has(index.analyzer.term('shipping')));
  assert.equal(unknownShare, 0);
});

test('words whose letters differ by the edit limit are still compared: each edit adds or removes one letter', () => {
  const index = buildIndex('en', ROWS);
  // One letter replaced (one the other lacks, one it has), two replaced, one added and one dropped.
  assert.equal(correctSpelling(index, 'paymant'), 'payment');
  assert.equal(correctSpelling(index, 'trxnsfxr'), 'transfer');
  assert.equal(correctSpelling(index, 'bsuiness'), 'business');
  assert.equal(correctSpelling(index, 'buisnesz'), 'business');
  assert.equal(correctSpelling(index, 'qaymxnt'), undefined, 'two edits for 7 letters');
  // Letters outside ASCII, which share bits with others.
  const russian = buildIndex('ru', [row('d', 'Сколько стоит доставка?', 'Доставка бесплатна.')]);
  assert.equal(correctSpelling(russian, 'доствка'), 'доставка');
  assert.equal(correctSpelling(russian, 'дoставка'), 'доставка', 'a Latin o');
});

test('a token longer than MAX_WORD_LENGTH is no word: its own term, never stemmed, related, looked up or corrected', () => {
  for (const [language, word] of [['en', 'running'], ['ru', 'доставки'], ['fr', 'continuellement']] as const) {
    const analyzer = analyzerFor(language);
    const longest = `${'a'.repeat(MAX_WORD_LENGTH - word.length)}${word}`;
    assert.notEqual(analyzer.term(longest), longest, `${language}: a word of the longest length is still stemmed`);
    for (const long of [`a${longest}`, 'y'.repeat(100_000)]) {
      assert.equal(analyzer.term(long), long);
      assert.deepEqual(analyzer.related(long), []);
      assert.equal(analyzer.isDictionaryWord(long), false);
    }
  }
  const giant = 'y'.repeat(100_000);
  assert.deepEqual(analyzerFor('en').words(`Hello ${giant}?`), ['hello', giant], 'kept as a token');
  assert.equal(correctSpelling(buildIndex('en', [row('y', `${'y'.repeat(99_999)}z`, 'Why?')]), giant), undefined);
});

test("retrieval looks at a text's first MAX_QUERY_CHARS characters and of them its first MAX_QUERY_WORDS words", () => {
  const index = buildIndex('en', ROWS);
  const shipping = index.analyzer.term('shipping');
  // Made-up words no entry has (and no misspelling of one): each counts as a word.
  const others = (count: number) => Array.from({ length: count }, (_, i) => `qx${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
  assert.ok(queryTerms(index, [...others(MAX_QUERY_WORDS - 1), 'shipping'].join(' ')).groups.has(shipping));
  const past = queryTerms(index, [...others(MAX_QUERY_WORDS), 'shipping'].join(' '));
  assert.equal(past.groups.has(shipping), false);
  assert.equal(past.groups.size, MAX_QUERY_WORDS);
  assert.equal(past.unknownShare, 1);
  // Characters: a word past the first MAX_QUERY_CHARS is not seen, whatever comes before it.
  assert.equal(queryTerms(index, `${' '.repeat(MAX_QUERY_CHARS)}shipping`).groups.size, 0);
  assert.ok(queryTerms(index, `${' '.repeat(MAX_QUERY_CHARS - 'shipping'.length)}shipping`).groups.has(shipping));
  assert.equal(queryText('y'.repeat(100_000)).length, MAX_QUERY_CHARS);
  // A pair of UTF-16 halves is never split: the first half alone is left out.
  assert.equal(queryText(`${'y'.repeat(MAX_QUERY_CHARS - 1)}😀`), 'y'.repeat(MAX_QUERY_CHARS - 1));
  assert.equal(queryText('short text'), 'short text');
});

test('of a text, only the first MAX_CORRECTED_WORDS words that neither the base nor the dictionary knows are corrected', () => {
  const index = buildIndex('en', ROWS);
  const payment = index.analyzer.term('payment');
  const unknown = (count: number) => Array.from({ length: count }, (_, i) => `zq${String.fromCharCode(97 + i)}x`);
  assert.ok(queryTerms(index, [...unknown(MAX_CORRECTED_WORDS - 1), 'paymnet'].join(' ')).groups.has(payment));
  assert.equal(queryTerms(index, [...unknown(MAX_CORRECTED_WORDS), 'paymnet'].join(' ')).groups.has(payment), false);
  // Dictionary words and the base's own words are not corrected, so they do not count.
  assert.ok(queryTerms(index, [...Array<string>(MAX_CORRECTED_WORDS).fill('parcel bank'), 'paymnet'].join(' ')).groups.has(payment));
});

test("the encoder gets a text's first MAX_QUERY_CHARS characters; a longer text is never an exact match", async () => {
  const unit = (i: number) => Array.from({ length: 4 }, (_, j) => (j === i ? 1 : 0));
  const rows = ROWS.map((r, i) => ({ ...r, questionVectors: unit(i), answerVector: unit(i), vectorsModel: 'use-lite' }));
  const embedded: string[] = [];
  const store = {
    findBaseVersion: () => Promise.resolve({ language: 'en', entriesVersion: 1, embeddings: null }),
    loadIndexRows: () => Promise.resolve(rows),
  };
  const retriever = createRetriever({ store, embed: (text) => (embedded.push(text), Promise.resolve(unit(0))) });
  const long = `How long does shipping take? ${'y'.repeat(100_000)}`;
  const [best] = await retriever.retrieve('base', 'en', long, 1);
  assert.deepEqual(embedded, [long.slice(0, MAX_QUERY_CHARS)]);
  assert.deepEqual([best?.id, best?.exact], ['ship', false]);
  const question = 'How long does shipping take?';
  const [exact] = await retriever.retrieve('base', 'en', `${question}${' '.repeat(MAX_QUERY_CHARS - question.length)}`, 1);
  assert.deepEqual([exact?.id, exact?.exact], ['ship', true]);
  const [found] = await retriever.retrieve('base', 'en', `${question}${' '.repeat(MAX_QUERY_CHARS)}`, 1);
  assert.deepEqual([found?.id, found?.exact], ['ship', false], 'found by its words');
});

test('words only: the entry with the words ranks first; a text about something else has low confidence', () => {
  const index = buildIndex('en', ROWS);
  const ranking = rankEntries(index, 'which payment options are there', undefined, 'fused');
  assert.equal(ranking.ranked[0]?.entry.id, 'pay');
  assert.ok(confidence(ranking.ranked[0]!, ranking, 'fused') >= 0.5);
  const other = rankEntries(index, 'who won the football match yesterday', undefined, 'fused');
  assert.ok(confidence(other.ranked[0]!, other, 'fused') < 0.2);
});

test('of entries asking the same question only the newest answers; the exact key finds the newest', () => {
  const index = buildIndex('en', [...ROWS, row('fix', 'How long does shipping take?', 'Two days now.', [], 5)]);
  assert.deepEqual(
    index.entries.map((entry) => entry.id),
    ['fix', 'pay', 'child'],
  );
  assert.equal(index.byKey.get('how long does shipping take')?.[0]?.id, 'fix');
  assert.equal(index.documentFrequency.get(index.analyzer.term('shipping')), 1);
});

test('vectors: the cosine to the question or nearest synonym, and to the answer, z-scored into the ranking', () => {
  const unit = (i: number) => Array.from({ length: 4 }, (_, j) => (j === i ? 1 : 0));
  const rows = ROWS.map((r, i) => ({ ...r, questionVectors: unit(i), answerVector: unit(i) }));
  const index = buildIndex('en', rows);
  assert.equal(index.dimensions, 4);
  // No shared word, but the meaning of the children's clothes entry.
  const ranking = rankEntries(index, 'outfits for kids', unit(2), 'fused');
  assert.equal(ranking.ranked[0]?.entry.id, 'child');
  assert.equal(ranking.ranked[0]?.question, 1);
  assert.equal(rankEntries(index, 'outfits for kids', unit(2), 'lexical').ranked[0]?.question, null);
});

test("only vectors of the base's current model are kept: another model's are never compared", () => {
  const withVectors = (base: IndexRow, model: string, vector: number[]): IndexRow => ({
    ...base,
    questionVectors: vector,
    answerVector: vector,
    vectorsModel: model,
  });
  const rows = [
    withVectors(row('ship', 'How long does shipping take?', 'Three days.'), 'new @ http://a', [1, 0, 0]),
    withVectors(row('pay', 'How can I pay?', 'By card.'), 'old @ http://b', [0, 1, 0]),
    row('child', 'Do you sell clothes for children?', 'Yes.'),
  ];
  const index = buildIndex('en', rows, 'new @ http://a');
  const vectorsOf = (id: string) => index.entries.find((entry) => entry.id === id);
  assert.equal(index.dimensions, 3);
  assert.equal(vectorsOf('ship')?.questionVectors.length, 1);
  assert.ok(vectorsOf('ship')?.answerVector);
  assert.deepEqual([vectorsOf('pay')?.questionVectors, vectorsOf('pay')?.answerVector], [[], null]);
  const ranking = rankEntries(index, 'paying', [0, 1, 0], 'fused');
  // The old model's vector equals the question's, but it is not there: "pay" has no semantic signal.
  const pay = ranking.ranked.find((signals) => signals.entry.id === 'pay');
  assert.deepEqual([pay?.question, pay?.answer], [null, null]);
  // Without a model (as before): every vector counts.
  assert.equal(buildIndex('en', rows).entries.find((entry) => entry.id === 'pay')?.questionVectors.length, 1);
});

test("the whole entry's vector: the mean of its question's and synonyms' vectors plus its answer's, normalized", () => {
  const entry = { ...row('ship', 'How long does shipping take?', 'Three days.', ['Delivery time?']), questionVectors: [1, 0, 0, 0, 0, 1], answerVector: [0, 2, 0] };
  const [indexed] = buildIndex('en', [entry]).entries;
  // (1, 0, 0) and (0, 0, 1) average to (0.5, 0, 0.5); plus the answer's (0, 1, 0) is (0.5, 1, 0.5), of length √1.5.
  const length = Math.sqrt(1.5);
  assert.deepEqual([...(indexed?.wholeVector ?? [])].map((x) => Math.round(x * 1e6) / 1e6), [0.5 / length, 1 / length, 0.5 / length].map((x) => Math.round(x * 1e6) / 1e6));
  const ranking = rankEntries(buildIndex('en', [entry]), 'delivery', [0, 1, 0], 'fused');
  assert.equal(Math.round((ranking.ranked[0]?.whole ?? 0) * 1e6) / 1e6, Math.round((1 / length) * 1e6) / 1e6);
  assert.equal(buildIndex('en', [row('x', 'Without vectors?', 'Yes.')]).entries[0]?.wholeVector, null);
});

test('the answer rule weighs the margin over the best other entry and the share of unknown words', () => {
  const index = buildIndex('en', ROWS);
  const ranking = rankEntries(index, 'which payment options are there', undefined, 'lexical');
  const [best, second] = ranking.ranked;
  const features = ruleFeatures(best!, ranking, false);
  const known = 1 - ranking.unknownShare;
  assert.deepEqual(features, [best!.lexical * known, (best!.lexical - second!.lexical) * known, ranking.unknownShare]);
  // Any other entry's margin is below zero: it does not stand above the best.
  assert.ok((ruleFeatures(second!, ranking, false)[1] ?? 0) < 0);
  assert.equal(confidence(best!, ranking, 'lexical'), Math.round(ruleConfidence(ANSWER_RULES.lexical, features) * 1000) / 1000);
  // More unknown words, less confidence, all else equal.
  const unknownMore = [features[0]! * 0.2, features[1]! * 0.2, 0.8];
  assert.ok(ruleConfidence(ANSWER_RULES.lexical, unknownMore) < ruleConfidence(ANSWER_RULES.lexical, features));
  const unit = (i: number) => Array.from({ length: 4 }, (_, j) => (j === i ? 1 : 0));
  const withVectors = buildIndex('en', ROWS.map((r, i) => ({ ...r, questionVectors: unit(i), answerVector: unit(i) })));
  const semantic = rankEntries(withVectors, 'outfits for kids', unit(2), 'fused');
  const top = semantic.ranked[0]!;
  // Margin to the best entry of another topic, question kinds, unknown share, strong agreement of words and encoder.
  const margins = topicMargins(top, semantic);
  assert.equal(margins.fused, top.fused - (semantic.ranked[1]?.fused ?? 0));
  assert.deepEqual(ruleFeatures(top, semantic, true), [margins.fused, 0, semantic.unknownShare, strongAgreement(margins, semantic.unknownShare) ? 1 : 0]);
});

test('a strong agreement: the words alone and the encoder alone both put the entry clearly above every other topic, the text mostly known', () => {
  const bars = STRONG_AGREEMENT;
  const clear = { fused: 5, lexical: bars.lexical, encoder: bars.encoder };
  assert.equal(strongAgreement(clear, 0), true);
  assert.equal(strongAgreement({ ...clear, lexical: bars.lexical - 0.01 }, 0), false, 'the words alone hesitate');
  assert.equal(strongAgreement({ ...clear, encoder: bars.encoder - 0.01 }, 0), false, 'the encoder alone hesitates');
  assert.equal(strongAgreement(clear, 0.5), false, 'half of the words unknown: one shared word is no agreement');
  // Entries with the same answer are one topic: their margins are over the other topics only.
  const unit = (i: number) => Array.from({ length: 4 }, (_, j) => (j === i ? 1 : 0));
  const rows = [...ROWS, row('same-answer', 'Another way to ask it?', ROWS[0]!.answer)];
  const index = buildIndex('en', rows.map((r, i) => ({ ...r, questionVectors: unit(i === rows.length - 1 ? 0 : i), answerVector: unit(i === rows.length - 1 ? 0 : i) })));
  const ranking = rankEntries(index, ROWS[0]!.question.toLowerCase(), unit(0), 'fused');
  const top = ranking.ranked[0]!;
  const others = ranking.ranked.filter((s) => s.entry.answer !== top.entry.answer);
  assert.ok(others.length < ranking.ranked.length - 1, 'an entry shares its answer');
  const margins = topicMargins(top, ranking);
  assert.equal(margins.lexical, top.lexical - Math.max(...others.map((s) => s.lexical)));
  assert.equal(margins.encoder, top.semantic - Math.max(...others.map((s) => s.semantic)));
});

test('precision first: a confident right answer answers; an unanswerable question and a near-tie of two topics fall back', async () => {
  const dimensions = 8;
  const unit = (...axes: number[]) => Array.from({ length: dimensions }, (_, j) => (axes.includes(j) ? 1 : 0));
  const rows = [
    row('ship-time', 'How long does shipping take?', 'Shipping takes 3 to 5 business days.'),
    row('ship-cost', 'How much does shipping cost?', 'Shipping costs 4.95 and is free over 50.'),
    row('pay', 'What payment methods do you accept?', 'We accept cards, PayPal and bank transfer.'),
    row('child', 'Do you sell clothes for children?', 'Yes, from size 86 to 164.'),
    row('return', 'How do I return an item?', 'Print the label in your account and drop the parcel at any post office.'),
    // Another question with the very same answer as `pay`: one topic, no doubt between answers.
    row('pay-too', 'Can I pay by card?', 'We accept cards, PayPal and bank transfer.'),
  ].map((r, i) => ({ ...r, questionVectors: unit(i === 5 ? 2 : i), answerVector: unit(i === 5 ? 2 : i), vectorsModel: 'use-lite' }));
  const vectors = new Map<string, number[]>([
    ['Which payment options are there?', unit(2)],
    ['Do you sell garden furniture?', unit(6)],
    ['shipping to Germany?', unit(0, 1)],
  ]);
  const store = {
    findBaseVersion: () => Promise.resolve({ language: 'en', entriesVersion: 1, embeddings: null }),
    loadIndexRows: () => Promise.resolve(rows),
  };
  const retriever = createRetriever({ store, embed: (text) => Promise.resolve(vectors.get(text) ?? unit(7)) });
  const best = async (text: string) => (await retriever.retrieve('base', 'en', text, 1))[0];

  const confident = await best('Which payment options are there?');
  assert.ok(confident?.id === 'pay' || confident?.id === 'pay-too');
  assert.equal(confident?.semantic, true);
  assert.ok((confident?.score ?? 0) >= ANSWER_THRESHOLD, `a confident right answer answers (${confident?.score})`);

  const unanswerable = await best('Do you sell garden furniture?');
  assert.ok((unanswerable?.score ?? 0) < ANSWER_THRESHOLD, `an unanswerable question falls back (${unanswerable?.score})`);

  const tie = await best('shipping to Germany?');
  assert.ok(tie?.id === 'ship-time' || tie?.id === 'ship-cost');
  assert.ok((tie?.score ?? 0) < ANSWER_THRESHOLD, `a near-tie between two topics falls back (${tie?.score})`);

  // The rule itself: the margin to another topic, the question kinds agreeing, unknown words and a strong agreement.
  assert.deepEqual(ANSWER_RULES.semantic, { intercept: -6, weights: [1, 1, -6, 4] });
  assert.equal(ruleConfidence(ANSWER_RULES.semantic, [6, 0, 0, 0]), 0.5);
  assert.ok(ruleConfidence(ANSWER_RULES.semantic, [6, -1, 0, 0]) < 0.5, 'a question asking for another kind of thing needs a wider margin');
  assert.ok(ruleConfidence(ANSWER_RULES.semantic, [6, 0, 0.25, 0]) < 0.5, 'words no entry has need a wider margin');
  assert.ok(ruleConfidence(ANSWER_RULES.semantic, [3, 0, 0, 1]) > 0.5, 'a strong agreement answers on a smaller margin');
  assert.ok(ruleConfidence(ANSWER_RULES.semantic, [3, 0, 0, 0]) < 0.5);
});

test("documents never change how entries rank or score; passages are ranked apart, each with its source", async () => {
  const unit = (i: number) => Array.from({ length: 4 }, (_, j) => (j === i ? 1 : 0));
  const rows = ROWS.map((r, i) => ({ ...r, questionVectors: unit(i), answerVector: unit(i), vectorsModel: 'use-lite' }));
  const passages = [
    { id: 'p1', documentName: 'policy.pdf', headingPath: ['Shipping', 'Costs'], text: 'Shipping is free over 40 pounds; express shipping costs 9 pounds.', headingVector: unit(0), textVector: unit(0), vectorsModel: 'use-lite' },
    { id: 'p2', documentName: 'policy.pdf', headingPath: ['Payment'], text: 'Cards and PayPal are accepted; bank transfer for orders over 500 pounds.', headingVector: unit(1), textVector: unit(1), vectorsModel: 'use-lite' },
    { id: 'p3', documentName: 'notes.txt', headingPath: [], text: 'Our shop cat is called Biscuit.', headingVector: null, textVector: null, vectorsModel: null },
  ];
  const store = {
    findBaseVersion: () => Promise.resolve({ language: 'en', entriesVersion: 1, embeddings: null }),
    loadIndexRows: () => Promise.resolve(rows),
  };
  // The cat is about nothing the vectors know of (a fourth direction); everything else leans to shipping.
  const embed = (text: string) => Promise.resolve(text.includes('cat') ? unit(3) : [0.9, 0.3, 0, 0]);
  const without = createRetriever({ store, embed });
  const withDocuments = createRetriever({ store, embed, loadPassages: () => Promise.resolve(passages) });
  for (const text of ['How much does shipping cost?', 'Can I pay by bank transfer?', 'Do you sell clothes for children?', 'What is the cat called?']) {
    assert.deepEqual(await withDocuments.retrieve('base', 'en', text, 5), await without.retrieve('base', 'en', text, 5), text);
  }
  const found = await withDocuments.retrieveWithPassages('base', 'How much does express shipping cost?', { entries: 2, passages: 2 });
  assert.deepEqual(found.entries.map((entry) => entry.id), (await without.retrieve('base', 'en', 'How much does express shipping cost?', 2)).map((entry) => entry.id));
  const first = found.passages[0];
  // Its source (the ranking's own figures, score and relevance, are beside it).
  assert.deepEqual(first && { id: first.id, document: first.document, headingPath: first.headingPath, text: first.text }, {
    id: 'p1',
    document: 'policy.pdf',
    headingPath: ['Shipping', 'Costs'],
    text: passages[0]?.text,
  });
  // An exact question match is the one entry; passages are ranked all the same.
  const exact = await withDocuments.retrieveWithPassages('base', 'How long does shipping take?', { entries: 5, passages: 5 });
  assert.deepEqual(exact.entries.map((entry) => [entry.id, entry.exact]), [['ship', true]]);
  assert.equal(exact.passages[0]?.id, 'p1');
  // The passage sharing the words first; one sharing no word and further than usual in meaning is not given.
  const cat = (await withDocuments.retrieveWithPassages('base', 'What is the cat called?', { entries: 0, passages: 5 })).passages.map((p) => p.id);
  assert.equal(cat[0], 'p3');
  assert.ok(!cat.includes('p2'), cat.join());
});

test('a synonym written on two entries with different answers is an exact match of both; a superseded entry keeps its own synonym', () => {
  const index = buildIndex('en', [
    ...ROWS,
    row('cost', 'How much does shipping cost?', 'Free above 50 euros.', ['delivery details'], 1),
    row('time', 'When will my parcel arrive?', 'In 3 to 5 business days.', ['delivery details', 'parcel times'], 2),
    row('old', 'When will my parcel arrive?', 'In a week.', ['when does it come'], 0),
  ]);
  assert.deepEqual(index.byKey.get('delivery details')?.map((entry) => entry.id), ['time', 'cost']);
  assert.deepEqual(index.byKey.get('when will my parcel arrive')?.map((entry) => entry.id), ['time']);
  assert.deepEqual(index.byKey.get('when does it come')?.map((entry) => entry.id), ['old']);
});

test('a kept phrasing is ranked, marked and answered only while unambiguous; customers choosing another entry for it make it a choice', async () => {
  const rows = [
    ...ROWS,
    { ...row('cost', 'How much does shipping cost?', 'Free above 50 euros.', ['shipping cost please']), keptKeys: ['shipping cost please'] },
    row('abroad', 'Do you ship abroad?', 'Within the European Union.'),
  ];
  const learning = new Map<string, string[]>([['shipping cost please', ['cost']]]);
  const store = { findBaseVersion: () => Promise.resolve({ language: 'en', entriesVersion: 1, embeddings: null }), loadIndexRows: () => Promise.resolve(rows) };
  const retriever = createRetriever({ store, entriesLearning: (_base, key) => Promise.resolve(learning.get(key) ?? []) });
  const kept = await retriever.retrieveWithPassages('base', 'Shipping cost, please!', { entries: 1, passages: 0 });
  const marked = kept.entries.find((entry) => entry.kept);
  assert.deepEqual([marked?.id, marked?.exact], ['cost', false]);
  assert.ok(kept.entries.every((entry) => !entry.exact));
  learning.set('shipping cost please', ['cost', 'abroad']);
  const both = await retriever.retrieveWithPassages('base', 'shipping cost please', { entries: 1, passages: 0 });
  assert.deepEqual(both.entries.map((entry) => [entry.id, entry.exact]), [['cost', true], ['abroad', true]]);
  // What Keep warns about: customers chose abroad for it; cost's own phrasing competes with nothing but abroad.
  assert.deepEqual(await retriever.competing('base', 'cost', 'shipping cost please'), [{ entryId: 'abroad', question: 'Do you ship abroad?' }]);
  // Worded as cost's question, a phrasing of abroad competes with cost (as close, ranked as abroad's synonym).
  learning.clear();
  assert.deepEqual((await retriever.competing('base', 'abroad', 'How much does shipping cost'))[0], { entryId: 'cost', question: 'How much does shipping cost?' });
});

test('decide: one exact entry answers, several are a choice; a kept phrasing answers while sure; menus only past the bars', () => {
  const entry = (id: string, fields: Partial<RetrievedEntry> = {}): RetrievedEntry => ({
    id,
    question: `${id}?`,
    answer: `${id}.`,
    score: 0.1,
    exact: false,
    semantic: true,
    relevance: 5,
    ...fields,
  });
  const asking = { threshold: undefined, asking: true };
  assert.deepEqual(decide([entry('a', { exact: true })], [], asking), { answer: 'a.', entryId: 'a', candidates: [] });
  assert.deepEqual(decide([entry('a', { exact: true }), entry('b', { exact: true })], [], asking).candidates.map((c) => c.label), ['a?', 'b?']);
  assert.deepEqual(decide([entry('a', { exact: true }), entry('b', { exact: true })], [], { ...asking, asking: false }), { answer: 'a.', entryId: 'a', candidates: [] });
  // A kept phrasing: sure and first, answered; unsure, offered first with the other plausible candidates.
  assert.equal(decide([entry('k', { kept: true, score: 0.9 }), entry('b')], [], asking).answer, 'k.');
  const unsure = decide([entry('b', { relevance: 12 }), entry('k', { kept: true, score: 0.9, relevance: 11 }), entry('c', { relevance: -20 })], [], asking);
  assert.deepEqual(unsure.candidates.map((c) => c.label), ['k?', 'b?']);
  // No kept phrasing: the menu bar on the best, the option bar on each.
  const bars = { menu: 10, option: 4 };
  assert.deepEqual(decide([entry('a', { relevance: 9.9 }), entry('b')], [], { ...asking, bars }).candidates, []);
  assert.deepEqual(decide([entry('a', { relevance: 10 }), entry('b', { relevance: 4 }), entry('c', { relevance: 3.9 })], [], { ...asking, bars }).candidates.map((c) => c.label), ['a?', 'b?']);
  // A message holding an action's value (an order number): the option bar alone makes the menu.
  assert.deepEqual(decide([entry('a', { relevance: 9.9 }), entry('b', { relevance: 4 }), entry('c', { relevance: 3.9 })], [], { ...asking, bars, valueSeen: true }).candidates.map((c) => c.label), ['a?', 'b?']);
  assert.deepEqual(decide([entry('a', { relevance: 3.9 })], [], { ...asking, bars, valueSeen: true }).candidates, []);
  assert.equal(decide([entry('a', { score: ANSWER_THRESHOLD })], [], asking).answer, 'a.');
});

test('fallbacks in a row: each fallback and each clarification since the last answer, greeting or handoff', () => {
  const reply = (agentReply: AgentMessage['agentReply']): AgentMessage => ({ role: 'assistant', text: '', attachments: [], agentReply });
  const customer: AgentMessage = { role: 'user', text: 'hi', attachments: [] };
  const member: AgentMessage = { role: 'assistant', text: 'a member', attachments: [] };
  assert.equal(fallbacksInARow([]), 0);
  assert.equal(fallbacksInARow([reply('answered'), customer, reply('fallback'), customer, reply('clarified'), customer]), 2);
  assert.equal(fallbacksInARow([reply('clarified'), customer, reply('answered'), customer]), 0);
  assert.equal(fallbacksInARow([reply('handoff'), customer, reply('clarified'), member, customer]), 1);
});
