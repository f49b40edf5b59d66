import assert from 'node:assert/strict';
import { test } from 'node:test';
import { transcriptHtml } from './transcript.ts';

const chat = { dialogName: 'Ada <admin>', uniqueId: 'c1_cc:x', channelName: 'custom' };
const at = new Date('2026-11-24T08:05:30.000Z');

test('each message with its author and time, text escaped, lines kept', () => {
  const html = transcriptHtml(
    chat,
    [
      { role: 'user', origin: 'customer', senderName: null, text: 'Hi <b>there</b>\nsecond line', attachments: [], createdAt: at },
      { role: 'assistant', origin: 'agent', senderName: null, text: 'Hello & welcome', attachments: [], createdAt: at },
      {
        role: 'assistant',
        origin: 'team',
        senderName: 'bob@example.com',
        text: '',
        attachments: [{ kind: 'image', name: 'a.png', url: 'u', contentType: 'image/png', fileSize: 1 }],
        createdAt: at,
      },
    ],
    false,
  );
  assert.equal(
    html,
    [
      '<p><strong>Parley chat with Ada &lt;admin&gt;</strong> (custom, chat key c1_cc:x)</p>',
      '<p><strong>Ada &lt;admin&gt;</strong> 2026-11-24 08:05 UTC<br>Hi &lt;b&gt;there&lt;/b&gt;<br>second line</p>',
      '<p><strong>Agent</strong> 2026-11-24 08:05 UTC<br>Hello &amp; welcome</p>',
      '<p><strong>Team (bob@example.com)</strong> 2026-11-24 08:05 UTC<br>[image: a.png]</p>',
    ].join('\n'),
  );
});

test('a long chat says that earlier messages were left out', () => {
  assert.match(transcriptHtml(chat, [], true), /earlier messages left out/);
});
