// A team reply made an entry's answer (the Gaps tab's `Create entry`): greetings, names and sign-offs left out.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { plainAnswer } from '../src/pages/knowledge/plain-answer.ts';

describe('plainAnswer', () => {
  const cases: [string, string][] = [
    ['Hi Dana, we ship to Norway in 5 days.', 'We ship to Norway in 5 days.'],
    ['Hello!', ''],
    ['Hello! We open at 9.', 'We open at 9.'],
    ['Hi there,\nyes, gift vouchers are sold in the shop.', 'Yes, gift vouchers are sold in the shop.'],
    ['Good morning Dana Smith. Returns are free.', 'Returns are free.'],
    ['Dear Dana,\n\nReturns are free within 30 days.\n\nBest regards,\nSam', 'Returns are free within 30 days.'],
    ['Returns are free.\nThanks, Sam', 'Returns are free.'],
    ['Thanks, Sam', ''],
    ['Returns are free.\n— Sam', 'Returns are free.'],
    ['Returns are free. — Sam', 'Returns are free.'],
    ['Returns are free. Thanks, Sam', 'Returns are free.'],
    ['Returns are free.\nCheers!\n- Sam', 'Returns are free.'],
    ['Returns are free.\n\nKind regards,\nSam Miller', 'Returns are free.'],
    ['Hi Dana, returns are free.\nThank you!\nSam', 'Returns are free.'],
    // Nothing to leave out: the reply stays as written.
    ['Hiking boots are in aisle 3.', 'Hiking boots are in aisle 3.'],
    ['We ship with DHL Express.', 'We ship with DHL Express.'],
    ['Thanks to our partners, shipping is free.', 'Thanks to our partners, shipping is free.'],
    ['Our best seller is the Blue Mug.', 'Our best seller is the Blue Mug.'],
  ];
  for (const [reply, expected] of cases) {
    test(JSON.stringify(reply), () => assert.equal(plainAnswer(reply), expected));
  }
});
