import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dice, termsOf } from './agreement.ts';
import { groupGaps } from './gaps-service.ts';
import { csvRecords, parseReplayFile } from './replay-file.ts';

test('CSV records: quoted fields with commas, doubled quotes and line breaks; CRLF and LF', () => {
  assert.deepEqual(csvRecords('a,b\r\n"x, y","say ""hi""\nthen"\nlast,\n'), [['a', 'b'], ['x, y', 'say "hi"\nthen'], ['last', '']]);
  assert.deepEqual(csvRecords('a,b'), [['a', 'b']]);
});

test('a file: CSV with a BOM and a conversationId column, JSON by its first character', () => {
  const csv = parseReplayFile(Buffer.from('\uFEFFQuestion,Answer,conversationId\n" Where? ",Here,c1\nWhen?,,\n'), 'x.csv', 'text/csv');
  assert.deepEqual(csv, [
    { question: 'Where?', teamAnswer: 'Here', conversationId: 'c1' },
    { question: 'When?', teamAnswer: null, conversationId: null },
  ]);
  const json = parseReplayFile(Buffer.from(' [{"question":"Why?","answer":"Because."}]'), 'upload', '');
  assert.deepEqual(json, [{ question: 'Why?', teamAnswer: 'Because.', conversationId: null }]);
  assert.throws(() => parseReplayFile(Buffer.from('[{"question":"Why?","extra":1}]'), 'a.json', ''), /row 1: property extra should not exist/);
  assert.throws(() => parseReplayFile(Buffer.from('[{"question":3}]'), 'a.json', ''), /row 1: question must be a string/);
});

test('similarity: stemmed terms, Dice', () => {
  assert.equal(dice(termsOf('en', 'Shipping takes 3 days'), termsOf('en', 'shipping took three days')) > 0.4, true);
  assert.equal(dice(new Set(), new Set(['a'])), 0);
});

test('gaps: one group per meaning, the most asked phrasing leading, stable ids', () => {
  const gaps = groupGaps('en', [
    { question: 'Can I pay with bitcoin?', teamAnswer: 'No.' },
    { question: 'Do you have a shop in Berlin?', teamAnswer: null },
    { question: 'can I pay with bitcoin', teamAnswer: 'No.' },
    { question: 'Can I pay in bitcoin please?', teamAnswer: 'Sorry, no crypto.' },
  ]);
  assert.deepEqual(gaps.map((g) => [g.size, g.examples[0], g.teamAnswers]), [
    [3, 'Can I pay with bitcoin?', ['No.', 'Sorry, no crypto.']],
    [1, 'Do you have a shop in Berlin?', []],
  ]);
  assert.equal(gaps[0]?.id, groupGaps('en', [{ question: 'can i pay with BITCOIN', teamAnswer: null }])[0]?.id);
});
