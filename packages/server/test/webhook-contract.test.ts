// The webhook payloads the public document publishes (`components.schemas`, `x-webhooks`) are what receivers
// get: every kind of delivery the server makes, collected by a real local receiver, validates against the
// published schema, and against the contract's closed schema too (no undeclared field is sent).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  DEFAULT_SENDER_NAME,
  DialogStatusChangedEvent,
  NewMessagesEvent,
  TaskTriggerEvent,
  type WebhookEvent,
} from '@parley/contracts';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { png } from './fixtures/files/samples.ts';
import { eventually } from './support/events.ts';
import { reply, startFakeLlm, type FakeLlm } from './support/fake-llm.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface PublicDocument {
  components: { schemas: Record<string, object> };
  'x-webhooks': Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
}

let t: TestApp;
let fake: FakeLlm;
let receiver: Receiver;
before(async () => {
  t = await startTestApp({ webhookAllowPrivateNetworks: true });
  fake = await startFakeLlm();
  receiver = await startReceiver();
});
after(async () => {
  await t.close();
  await fake.close();
  await receiver.close();
});

/** The published schema of each event, by event name, compiled as a client would (OpenAPI 3.0 `nullable`). */
async function publishedValidators(): Promise<Record<string, ValidateFunction>> {
  const { status, body } = await t.request<PublicDocument>('GET', '/api/v1/openapi.json');
  assert.equal(status, 200);
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  for (const [name, schema] of Object.entries(body.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
  return Object.fromEntries(
    Object.entries(body['x-webhooks']).map(([event, hook]) => {
      const ref = hook.post.requestBody.content['application/json'].schema.$ref;
      const validate = ajv.getSchema(ref);
      assert.ok(validate, `${event}: ${ref} is published`);
      return [event, validate];
    }),
  );
}

/** The contract's own (closed) schemas: a field the server sends but does not declare fails here. */
function closedValidators(): Record<string, ValidateFunction> {
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  return {
    new_messages: ajv.compile(NewMessagesEvent),
    task_trigger: ajv.compile(TaskTriggerEvent),
    dialog_status_changed: ajv.compile(DialogStatusChangedEvent),
  };
}

/** What a payload is an example of, e.g. `new_messages/assistant`, `dialog_status_changed/manual`. */
function kindOf(event: WebhookEvent): string {
  switch (event.event) {
    case 'new_messages':
      return `new_messages/${event.messages[0]?.role ?? 'none'}`;
    case 'task_trigger':
      return 'task_trigger';
    case 'dialog_status_changed':
      return `dialog_status_changed/${event.status.source.type}`;
  }
}

test('every payload the server delivers validates against the schema the public document publishes', async () => {
  const published = await publishedValidators();
  assert.deepEqual(Object.keys(published).sort(), ['dialog_status_changed', 'new_messages', 'task_trigger']);
  const closed = closedValidators();

  const user = await t.createConsoleUser();
  const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    body: {
      name: 'Contract shop',
      webhookUrl: receiver.url,
      agentEngine: { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', timeoutSeconds: 10 },
      settings: { role: 'a shop assistant', task: 'book a table' },
    },
  });
  assert.equal(channel.status, 201, channel.text);
  const channelId = channel.body.id;
  fake.script(
    '/v1/chat/completions',
    reply.completeTask('call_1', 'Table booked.'),
    reply.text('Your table is booked.'),
    reply.text('Here is your photo back.'),
  );
  const received = () => receiver.requests.map((request) => JSON.parse(request.body) as WebhookEvent);
  const waitFor = (kind: string, count = 1) =>
    eventually(async () => received().filter((e) => kindOf(e) === kind).length >= count, 10_000);

  // A customer message without senderName: new_messages (user), the agent's reply (assistant), the task trigger
  // and the status change it makes.
  const send = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: user.key },
    body: { channel: 'custom', channelId, externalChatId: 'contract-1', role: 'user', text: 'A table for two, please.' },
  });
  assert.equal(send.status, 201, send.text);
  await waitFor('new_messages/assistant');
  await waitFor('task_trigger');
  await waitFor('dialog_status_changed/trigger');
  const chatId = received().find((e) => e.event === 'new_messages')?.chat.id;
  assert.ok(chatId);

  // A customer message with a file (an attachment in the payload), and its reply.
  const form = new FormData();
  for (const [name, value] of Object.entries({ channel: 'custom', channelId, externalChatId: 'contract-1', role: 'user', text: 'My photo', senderName: 'Ann' })) {
    form.append(name, value);
  }
  form.append('files', new Blob([png()], { type: 'image/png' }), 'photo.png');
  const upload = await fetch(`${t.url}/api/v1/chats/chat/send-message-universal`, { method: 'POST', headers: { authorization: user.key }, body: form });
  assert.equal(upload.status, 201, await upload.text());
  await waitFor('new_messages/assistant', 2);

  // The status changed through the public API, then by a team member in the Inbox, and a team reply.
  const undone = await t.api(user.key, '/chats/chat/undone', { id: chatId });
  assert.equal(undone.status, 202, undone.text);
  await waitFor('dialog_status_changed/api');
  const manual = await t.console(user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } });
  assert.equal(manual.status, 200, manual.text);
  await waitFor('dialog_status_changed/manual');
  const team = await t.console(user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text: 'A team reply.' } });
  assert.ok(team.status === 200 || team.status === 201, team.text);
  await waitFor('new_messages/assistant', 3);

  // The console's webhook test sends a sample new_messages event too.
  const sample = await t.console<{ success: boolean }>(user.token, 'POST', `/webhooks/custom/${channelId}/test`);
  assert.equal(sample.body.success, true, sample.text);

  const events = received();
  assert.deepEqual(
    [...new Set(events.map(kindOf))].sort(),
    [
      'dialog_status_changed/api',
      'dialog_status_changed/manual',
      'dialog_status_changed/trigger',
      'new_messages/assistant',
      'new_messages/user',
      'task_trigger',
    ],
  );
  assert.ok(events.some((e) => e.event === 'new_messages' && (e.messages[0]?.attachments.length ?? 0) > 0), 'an attachment was delivered');
  assert.ok(
    events.some((e) => e.event === 'new_messages' && e.messages[0]?.senderName === DEFAULT_SENDER_NAME),
    'a customer message without senderName is from the documented default',
  );
  for (const event of events) {
    const open = published[event.event];
    assert.ok(open, `${event.event} is published`);
    assert.ok(open(event), `${kindOf(event)} against the published schema: ${JSON.stringify(open.errors)}\n${JSON.stringify(event)}`);
    const strict = closed[event.event];
    assert.ok(strict?.(event), `${kindOf(event)} sends only declared fields: ${JSON.stringify(strict?.errors)}`);
  }

  // The published schemas are open (receivers must accept new fields) and do reject a wrong payload.
  const first = events.find((e) => e.event === 'new_messages');
  assert.equal(published.new_messages?.({ ...first, addedLater: 1 }), true);
  assert.equal(published.new_messages?.({ ...first, messages: [{ id: 1 }] }), false);
});
