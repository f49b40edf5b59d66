// Knowledge gaps grouped by meaning with the built-in sentence encoder (issue #42, 6): an English base's unanswered
// questions asked in other words ("gift vouchers", "gift cards") are one group, while a question on a near topic
// ("a loyalty program") and an unrelated one stay apart; a group nobody in the team answered has no team replies.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KnowledgeGap } from '@parley/contracts';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ knowledgeEncoder: true });
});
after(async () => {
  await t.close();
});

describe('knowledge gaps by meaning', () => {
  test('"gift vouchers" and "gift cards" are one gap; other questions stay apart', async () => {
    const owner = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    assert.equal(base.status, 201, base.text);
    const entry = { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' };
    assert.equal((await t.console(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry })).status, 201);
    const created = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Shop', knowledgeBaseId: base.body.id, handoffAfterFallbacks: 0, clarifyChoices: 0 },
    });
    assert.equal(created.status, 201, created.text);
    const channelId = created.body.id;
    const asked: [string, string, string | null][] = [
      ['v1', 'Do you have gift vouchers?', 'Yes, from 10 to 100 euros.'],
      ['v2', 'Do you have gift vouchers?', 'Yes, from 10 to 100 euros.'],
      ['v3', 'Do you offer gift cards?', 'Yes, in the shop and online.'],
      ['l1', 'Do you have a loyalty program?', null],
      ['b1', 'Do you have a shop in Berlin?', 'Yes, on Main Street 5.'],
    ];
    for (const [external, question, reply] of asked) {
      const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: owner.key },
        body: { channel: 'custom', channelId, externalChatId: external, role: 'user', text: question },
      });
      assert.equal(sent.status, 201, sent.text);
      const list = await t.api<{ chats: { id: string; chatId: string }[] }>(owner.key, '/chats/chat', { channelId });
      const chatId = list.body.chats.find((c) => c.chatId === external)?.id ?? '';
      // The agent's fallback first, then the team's reply.
      await eventually(async () => {
        const res = await t.console<{ messages: { role: string }[] }>(owner.token, 'GET', `/chat/messages/${chatId}/`);
        return res.body.messages.some((m) => m.role === 'assistant') ? true : undefined;
      }, 30_000);
      if (reply) assert.equal((await t.console(owner.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: reply } })).status, 201);
    }
    const res = await t.console<{ gaps: KnowledgeGap[] }>(owner.token, 'GET', `/knowledge-bases/${base.body.id}/gaps`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.gaps.map(({ size, examples, teamAnswers }) => ({ size, examples, teamAnswers })),
      [
        { size: 3, examples: ['Do you have gift vouchers?', 'Do you offer gift cards?'], teamAnswers: ['Yes, from 10 to 100 euros.', 'Yes, in the shop and online.'] },
        { size: 1, examples: ['Do you have a loyalty program?'], teamAnswers: [] },
        { size: 1, examples: ['Do you have a shop in Berlin?'], teamAnswers: ['Yes, on Main Street 5.'] },
      ],
    );
  });
});
