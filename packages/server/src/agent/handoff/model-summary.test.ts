import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelLines, summaryPrompt, SUMMARY_PROMPT, transcript } from './model-summary.ts';

test("the model's three lines: list marks and blank lines taken off, the first three kept, each cut; fewer are none", () => {
  assert.deepEqual(modelLines('\n1. Request: a refund.\n\n- Agent: nothing.\n* Reason: asked for a person.\nExtra line.'), [
    'Request: a refund.',
    'Agent: nothing.',
    'Reason: asked for a person.',
  ]);
  assert.deepEqual(modelLines('2) one\n• two\n3. three'), ['one', 'two', 'three']);
  assert.equal(modelLines('Request: a refund.\nReason: money.'), null);
  assert.equal(modelLines('   \n\n'), null);
  const long = modelLines(`${'a'.repeat(400)}\nb\nc`);
  assert.equal(long?.[0]?.length, 300);
  assert.ok(long?.[0]?.endsWith('…'));
});

test('the transcript names who wrote each message and leaves out empty ones; the prompt ends with the facts', () => {
  const text = transcript([
    { role: 'user', origin: 'api', senderName: 'Ann', text: 'Where is  my\norder?' },
    { role: 'assistant', origin: 'agent', senderName: null, text: 'It ships today.' },
    { role: 'assistant', origin: 'auto', senderName: null, text: 'We are closed.' },
    { role: 'assistant', origin: 'console', senderName: 'Sam', text: 'Let me check.' },
    { role: 'assistant', origin: 'api', senderName: null, text: 'From the API.' },
    { role: 'user', origin: 'api', senderName: 'Ann', text: '  ' },
  ]);
  assert.equal(text, 'Customer: Where is my order?\nAI agent: It ships today.\nAuto-reply: We are closed.\nSam: Let me check.\nTeam: From the API.');
  const prompt = summaryPrompt('Request: x\nCustomer: Ann');
  assert.ok(prompt.startsWith(SUMMARY_PROMPT));
  assert.ok(prompt.endsWith('Facts:\nRequest: x\nCustomer: Ann'));
});
