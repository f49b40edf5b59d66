// `Try the agent` on a channel's page shows a clarification as its options with buttons (issue #42, 4): a knowledge
// base whose engine answers only exact questions clarifies a loose one; a click on an option sends its number and
// shows the answer to the pick; `Something else` shows the handoff message; a typed number answers the open
// clarification too. No model: the built-in knowledge-base engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserTests } from './support/browser.ts';
import { webSuite } from './support/web-suite.ts';

const WAIT = 30_000;
const ENTRIES = [
  { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
  { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros, else 4.90 euros.' },
  { question: 'Do you ship abroad?', answer: 'We ship to every country of the European Union.' },
  { question: 'How do I return an item?', answer: 'Send it back within 30 days with the return label from your account.' },
];

describe('Try the agent in the web account', browserTests, () => {
  const web = webSuite();

  test('a clarification shows its options as buttons; a click picks and shows the answer', async (ctx) => {
    const { t } = web;
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    for (const entry of ENTRIES) assert.equal((await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry })).status, 201);
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Shop', knowledgeBaseId: base.body.id, agentEngine: { kind: 'knowledge-base', answerThreshold: 1 }, handoffMessage: 'A person will take over.' },
    });
    assert.equal(channel.status, 201, channel.text);

    await web.signedIn(ctx, `${t.url}/channels/custom/${encodeURIComponent(channel.body.id)}`, user.email, async (page) => {
      const panel = page.getByRole('form', { name: 'Try the agent', exact: true });
      const ask = async (text: string) => {
        await panel.getByRole('textbox', { name: 'Message to the agent', exact: true }).fill(text);
        await panel.getByRole('button', { name: 'Ask', exact: true }).click();
      };
      const reply = panel.getByLabel('Agent reply', { exact: true });
      const choices = panel.getByRole('group', { name: 'Choices', exact: true });

      await ask('shipping cost');
      await choices.waitFor({ timeout: WAIT });
      const labels = await choices.getByRole('button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? ''));
      assert.equal(labels.length, 4);
      assert.equal(labels.at(-1), 'Something else');
      for (const label of labels.slice(0, 3)) assert.ok(ENTRIES.some((e) => e.question === label), label);
      // The prompt stays in the reply; the options are the buttons (numbered as the customer would type them).
      assert.equal(await reply.textContent(), 'Did you mean one of these?');
      assert.equal(await choices.getByRole('button', { name: labels[1], exact: true }).textContent(), `2. ${labels[1]}`);

      // A click picks: the answer of that option's entry, the buttons gone.
      await choices.getByRole('button', { name: labels[1], exact: true }).click();
      const answer = ENTRIES.find((e) => e.question === labels[1])?.answer ?? '';
      await panel.getByText(answer, { exact: true }).waitFor({ timeout: WAIT });
      assert.equal(await panel.getByLabel('Your pick', { exact: true }).textContent(), labels[1]);
      assert.equal(await choices.count(), 0);

      // `Something else` hands off: the handoff message.
      await ask('shipping cost');
      await choices.waitFor({ timeout: WAIT });
      await choices.getByRole('button', { name: 'Something else', exact: true }).click();
      await panel.getByText('A person will take over.', { exact: true }).waitFor({ timeout: WAIT });

      // A number typed while the options are shown picks too.
      await ask('shipping cost');
      await choices.waitFor({ timeout: WAIT });
      await ask('1');
      await panel.getByText(ENTRIES.find((e) => e.question === labels[0])?.answer ?? '', { exact: true }).waitFor({ timeout: WAIT });
    });
  });
});
