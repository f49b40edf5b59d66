import assert from 'node:assert/strict';
import { test } from 'node:test';
import { handoffSummary, isGreeting, type SummaryMessage } from './handoff-summary.ts';

const base = { origin: null, fallback: false, handoff: false, greeting: false, choices: null };
const customer = (text: string): SummaryMessage => ({ ...base, role: 'user', origin: 'api', text });
const agent = (text: string, extra: Partial<SummaryMessage> = {}): SummaryMessage => ({ ...base, role: 'assistant', origin: 'agent', text, ...extra });
const card = { name: 'Ann', email: 'ann@example.com', identifier: 'ext-1', channel: 'Shop (widget)' };

test('greetings and thanks alone are no request; anything more is', () => {
  for (const text of ['Hi', 'hello!', 'Thanks', 'thank you.', 'Привет', 'Спасибо!', 'Merci', '  ']) assert.equal(isGreeting(text), true, text);
  for (const text of ['Hi, where is my order?', 'Thanks, and the refund?']) assert.equal(isGreeting(text), false, text);
});

test('a clarification answered with 0: the options offered, the customer chose none; only the stretch since the team last spoke', () => {
  const summary = handoffSummary({
    messages: [
      customer('Old question'),
      { ...base, role: 'assistant', origin: 'team', text: 'A member answered.' },
      customer('hello'),
      customer('How do I return shoes?'),
      customer('how do I return shoes'),
      agent('Did you mean:\n1. Returns\n2. Exchanges\n0. Something else', {
        choices: { options: [{ label: 'Returns' }, { label: 'Exchanges' }], other: 'Something else' },
      }),
      customer('0'),
      agent('Passing you to the team.', { handoff: true }),
    ],
    reason: 'fallbacks',
    customer: card,
  });
  assert.equal(
    summary,
    [
      'Request: How do I return shoes?',
      'Agent: offered: Returns; Exchanges',
      'Reason: the customer chose 0 (none of the options offered)',
      'Customer: Ann · ann@example.com · id ext-1 · Shop (widget)',
    ].join('\n'),
  );
});

test("an answer, then the customer asks for a person; the model's reason is quoted", () => {
  const messages = [customer('Where is my order 123?'), agent('It ships tomorrow.'), customer('I want a person')];
  assert.equal(
    handoffSummary({ messages, reason: 'customer_request', customer: { ...card, email: null } }),
    [
      'Request: Where is my order 123? / I want a person',
      'Agent: answered "It ships tomorrow."',
      'Reason: the customer asked for a person',
      'Customer: Ann · no e-mail · id ext-1 · Shop (widget)',
    ].join('\n'),
  );
  assert.match(handoffSummary({ messages, reason: 'model', note: 'Angry customer.', customer: card }), /^Reason: the AI agent handed it over: Angry customer\.$/m);
});
