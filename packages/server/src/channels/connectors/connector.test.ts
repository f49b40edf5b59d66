// Pure parts of the connectors: splitting long texts, constant-time comparison, and parsing updates that carry
// no customer message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitText } from './connector.ts';
import { secretsEqual } from '../../lib/secrets.ts';
import { createMetaConnector } from './meta.ts';
import type { MessengerHttp } from '../../kernel/messenger-http.ts';
import { createTelegramConnector } from './telegram.ts';
import { createViberConnector } from './viber.ts';

const http = {} as MessengerHttp;

test('splitText: short texts stay whole; long ones split at paragraphs, lines, words, never inside a surrogate pair', () => {
  assert.deepEqual(splitText('hello', 10), ['hello']);
  assert.deepEqual(splitText('', 10), ['']);
  assert.deepEqual(splitText('aaaa bbbb\n\ncccc dddd', 12), ['aaaa bbbb', 'cccc dddd']);
  assert.deepEqual(splitText('aaaa bbbb cccc', 10), ['aaaa bbbb', 'cccc']);
  assert.deepEqual(splitText('x'.repeat(25), 10), ['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  const emoji = `${'x'.repeat(9)}😀${'y'.repeat(5)}`;
  const parts = splitText(emoji, 10);
  assert.deepEqual(parts, ['x'.repeat(9), `😀${'y'.repeat(5)}`]);
  for (const part of splitText('word '.repeat(3000), 4096)) assert.ok(part.length <= 4096);
});

test('secretsEqual (the webhooks\' signatures and tokens) compares whole strings', () => {
  assert.equal(secretsEqual('secret', 'secret'), true);
  assert.equal(secretsEqual('secret', 'secreT'), false);
  assert.equal(secretsEqual('secret', 'secret2'), false);
  assert.equal(secretsEqual('', 'x'), false);
  assert.equal(secretsEqual('', ''), true);
  assert.equal(secretsEqual('sha256=ABC', 'sha256=abc'), false);
});

test('updates without a customer message parse to none', () => {
  const telegram = createTelegramConnector({ http, apiUrl: 'http://t' });
  assert.deepEqual(telegram.parse({ update_id: 1, edited_message: { text: 'x' } }, ''), []);
  assert.deepEqual(telegram.parse('nonsense', ''), []);
  const group = telegram.parse({ update_id: 2, message: { chat: { id: -100, type: 'supergroup', title: 'Team' }, from: { first_name: 'Bo' }, text: 'hi' } }, '');
  assert.deepEqual(group.map((m) => [m.externalChatId, m.dialogName, m.senderName, m.isGroup]), [['-100', 'Team', 'Bo', true]]);

  const facebook = createMetaConnector({ http, graphUrl: 'http://g', kind: 'facebook' });
  const echo = { object: 'page', entry: [{ messaging: [{ sender: { id: '1' }, message: { mid: 'm', text: 'x', is_echo: true } }] }] };
  assert.deepEqual(facebook.parse(echo, ''), []);
  assert.deepEqual(facebook.parse({ object: 'instagram', entry: [] }, ''), [], 'another kind');
  const whatsapp = createMetaConnector({ http, graphUrl: 'http://g', kind: 'whatsapp' });
  const statuses = { object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { statuses: [{ id: 'x', status: 'read' }] } }] }] };
  assert.deepEqual(whatsapp.parse(statuses, ''), []);

  const viber = createViberConnector({ http, apiUrl: 'http://v' });
  assert.deepEqual(viber.parse({ event: 'delivered', message_token: 1 }, '{"event":"delivered","message_token":1}'), []);
});
