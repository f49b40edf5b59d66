// The openai-compatible agent engine end to end: customer messages through the public API, the reply job asking a
// real local model server (Chat Completions, audio transcriptions), the reply and the task trigger as webhook
// events to a real receiver, retries and recorded failures, images and voice, and the console test chat.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DialogStatusChangedEvent, NewMessagesEvent, TaskTriggerEvent, WebhookEvent } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import { mp3WithId3, png } from './fixtures/files/samples.ts';
import { eventsOf, eventually } from './support/events.ts';
import { formOf, reply, startFakeLlm, type FakeLlm, type LlmRequest } from './support/fake-llm.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const COMPLETIONS = '/v1/chat/completions';
const TRANSCRIPTIONS = '/v1/audio/transcriptions';
const API_KEY = 'sk-test-123';
const SETTINGS = { role: 'a support agent of Parley Shop', task: 'help the customer book a table', behavior: 'Be brief.', aiLang: 'en' };
/** The settings object of the events: the channel's settings over the defaults. */
const EVENT_SETTINGS = { ...SETTINGS, greeting: '', isActive: true };
const VOICE_NOTE = '[The customer sent a voice message, which cannot be listened to here.]';

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;
type ModelMessage = { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string };
interface Tool {
  type: string;
  function: { name: string; parameters: { type: string; properties: Record<string, { type: string }>; required: string[] } };
}
interface CompletionBody {
  model: string;
  messages: ModelMessage[];
  tools: Tool[];
  tool_choice?: string;
}
interface Failure {
  id: string;
  channelId: string;
  chatId: string;
  error: string;
  createdAt: string;
}
interface ChatList {
  chats: { id: string; isTriggered: boolean }[];
  count: number;
}

const bodyOf = (request: LlmRequest | undefined): CompletionBody => {
  assert.ok(request, 'the model server got the request');
  return request.json as CompletionBody;
};

describe('openai-compatible engine', { concurrency: true }, () => {
  let t: TestApp;
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
  });
  after(async () => {
    await t.close();
    await Promise.all(closers.map((close) => close()));
  });

  async function fakeLlm(): Promise<FakeLlm> {
    const fake = await startFakeLlm();
    closers.push(() => fake.close());
    return fake;
  }

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver();
    closers.push(() => r.close());
    return r;
  }

  /**
   * A console user's custom channel whose agent is the fake model server, with a webhook receiver. The time limit
   * is generous (a loaded machine must not turn a prompt answer into a timeout); the timeout test sets 1 s.
   */
  async function setUp(options: { engine?: Record<string, unknown>; channel?: Record<string, unknown>; user?: User } = {}) {
    const fake = await fakeLlm();
    const r = await receiver();
    const user = options.user ?? (await t.createConsoleUser());
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: {
        name: 'Parley Shop',
        webhookUrl: r.url,
        agentEngine: { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', apiKey: API_KEY, timeoutSeconds: 10, ...options.engine },
        settings: SETTINGS,
        ...options.channel,
      },
    });
    assert.equal(channel.status, 201, channel.text);
    const channelId = channel.body.id;
    const send = async (externalChatId: string, text: string) => {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId, externalChatId, role: 'user', text },
      });
      assert.equal(res.status, 201, res.text);
    };
    const sendFiles = async (externalChatId: string, text: string, files: { filename: string; type: string; bytes: Buffer }[]) => {
      const form = new FormData();
      for (const [name, value] of Object.entries({ channel: 'custom', channelId, externalChatId, role: 'user', text })) form.append(name, value);
      for (const file of files) form.append('files', new Blob([file.bytes], { type: file.type }), file.filename);
      const res = await fetch(`${t.url}/api/v1/chats/chat/send-message-universal`, { method: 'POST', headers: { authorization: user.key }, body: form });
      assert.equal(res.status, 201, await res.text());
    };
    /** The events the receiver got, in arrival order. */
    const hooks = () => r.requests.map((request) => JSON.parse(request.body) as WebhookEvent);
    const messageEvents = (role: 'user' | 'assistant') =>
      hooks().filter((e): e is NewMessagesEvent => e.event === 'new_messages' && e.messages[0]?.role === role);
    /** Waits for the n-th agent reply to reach the webhook. */
    const nthReply = (n: number, ms = 10_000) => eventually(async () => messageEvents('assistant')[n - 1], ms);
    const failures = (as = user) => t.console<{ failures: Failure[] }>(as.token, 'GET', '/agent/failures/');
    const stored = async () => (await eventsOf(t.database.db, channelId)).map((e) => e.payload as unknown as WebhookEvent);
    return { fake, r, user, channelId, send, sendFiles, hooks, messageEvents, nthReply, failures, stored };
  }

  test('a plain reply: one request with model, key, the tool, the system prompt and the message; history next time', async () => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Shop facts' } });
    assert.equal(base.status, 201, base.text);
    const entry = await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, {
      body: { question: 'What are your opening hours?', answer: 'We are open from 10:00 to 22:00 every day.' },
    });
    assert.equal(entry.status, 201, entry.text);
    const s = await setUp({ user, channel: { knowledgeBaseId: base.body.id } });
    s.fake.script(COMPLETIONS, reply.text('We are open from 10:00 to 22:00.'), reply.text('Yes, dogs are welcome.'));

    await s.send('plain-1', 'What are your opening hours?');
    const answered = await s.nthReply(1);
    assert.equal(s.fake.requests.length, 1, 'exactly one request to the model server');
    const [request] = s.fake.requests;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, COMPLETIONS);
    assert.equal(request?.headers.authorization, `Bearer ${API_KEY}`);
    assert.match(String(request?.headers['content-type']), /^application\/json/);
    const body = bodyOf(request);
    assert.equal(body.model, 'test-model');
    assert.equal(body.tool_choice, undefined, 'the first request lets the model call the tool');
    assert.equal(body.tools.length, 2, 'complete_task and hand_off');
    const [tool, handOff] = body.tools;
    assert.equal(tool?.type, 'function');
    assert.equal(tool?.function.name, 'complete_task');
    assert.equal(tool?.function.parameters.type, 'object');
    assert.equal(tool?.function.parameters.properties.summary?.type, 'string');
    assert.deepEqual(tool?.function.parameters.required, ['summary']);
    assert.equal(handOff?.type, 'function');
    assert.equal(handOff?.function.name, 'hand_off');
    assert.equal(handOff?.function.parameters.properties.reason?.type, 'string');
    assert.deepEqual(handOff?.function.parameters.required, ['reason']);
    assert.equal(body.messages.length, 2);
    const system = body.messages[0];
    assert.equal(system?.role, 'system');
    const prompt = String(system?.content);
    for (const part of [
      'a support agent of Parley Shop',
      'Be brief.',
      'help the customer book a table',
      'Always answer in this language: en.',
      'Call the hand_off tool, instead of answering, when the customer asks to talk to a person',
      'Q: What are your opening hours?\nA: We are open from 10:00 to 22:00 every day.',
    ]) {
      assert.ok(prompt.includes(part), `the system prompt has ${JSON.stringify(part)}:\n${prompt}`);
    }
    assert.deepEqual(body.messages[1], { role: 'user', content: 'What are your opening hours?' });

    // The webhook: the customer's message, then the agent's reply with the model's content.
    const [asked] = s.messageEvents('user');
    assert.equal(asked?.messages[0]?.text, 'What are your opening hours?');
    assert.equal(answered.messages.length, 1);
    assert.equal(answered.messages[0]?.text, 'We are open from 10:00 to 22:00.');
    assert.equal(answered.messages[0]?.senderName, null);
    assert.deepEqual(answered.messages[0]?.attachments, []);
    assert.deepEqual(answered.chat, asked?.chat);
    assert.deepEqual(answered.settings, EVENT_SETTINGS);
    assert.ok(Date.parse(answered.messages[0]?.createdAt ?? '') >= Date.parse(asked?.messages[0]?.createdAt ?? ''));
    assert.deepEqual(
      (await s.stored()).map((e) => [e.event, e.event === 'new_messages' ? e.messages[0]?.role : null]),
      [
        ['new_messages', 'user'],
        ['new_messages', 'assistant'],
      ],
    );

    // The next message in the chat: the earlier exchange goes first, as history.
    await s.send('plain-1', 'Can I bring my dog?');
    const second = await s.nthReply(2);
    assert.equal(second.messages[0]?.text, 'Yes, dogs are welcome.');
    assert.equal(s.fake.requests.length, 2);
    assert.deepEqual(bodyOf(s.fake.requests[1]).messages.slice(1), [
      { role: 'user', content: 'What are your opening hours?' },
      { role: 'assistant', content: 'We are open from 10:00 to 22:00.' },
      { role: 'user', content: 'Can I bring my dog?' },
    ]);
    const list = await t.api<ChatList>(user.key, '/chats/chat');
    assert.equal(list.body.chats[0]?.isTriggered, false, 'no tool call, no trigger');
  });

  test('complete_task: a follow-up request for the reply, then new_messages, task_trigger and dialog_status_changed', async () => {
    const s = await setUp();
    s.fake.script(
      COMPLETIONS,
      reply.completeTask('call_1', 'Table for two booked for 19:00.'),
      reply.text('Your table for two is booked for 19:00. See you!'),
      reply.completeTask('call_2', 'Booking confirmed again.'),
      reply.text('It is still booked.'),
    );
    await s.send('task-1', 'Book a table for two at 19:00, please.');
    const answered = await s.nthReply(1);
    assert.equal(answered.messages[0]?.text, 'Your table for two is booked for 19:00. See you!');

    // Two requests: the follow-up carries the tool call and its result, and forbids another tool call.
    const [first, followUp] = s.fake.to(COMPLETIONS).map(bodyOf);
    assert.equal(s.fake.requests.length, 2);
    assert.ok(first && followUp);
    assert.equal(followUp.model, 'test-model');
    assert.equal(followUp.tool_choice, 'none');
    assert.deepEqual(followUp.tools, first.tools);
    assert.deepEqual(followUp.messages.slice(0, -2), first.messages);
    assert.deepEqual(followUp.messages.slice(-2), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'complete_task', arguments: JSON.stringify({ summary: 'Table for two booked for 19:00.' }) } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'The task is marked complete.' },
    ]);
    assert.equal(s.fake.requests[1]?.headers.authorization, `Bearer ${API_KEY}`);

    // The events, all written with the reply.
    const [asked] = s.messageEvents('user');
    const customerMessage = asked?.messages[0];
    assert.ok(asked && customerMessage);
    const trigger = await eventually(async () => s.hooks().find((e): e is TaskTriggerEvent => e.event === 'task_trigger'));
    assert.deepEqual(trigger, {
      event: 'task_trigger',
      chat: asked.chat,
      message: customerMessage,
      summary: 'Table for two booked for 19:00.',
      settings: EVENT_SETTINGS,
      timestamp: answered.timestamp,
    });
    assert.equal(customerMessage.role, 'user');
    assert.equal(customerMessage.text, 'Book a table for two at 19:00, please.');
    const status = await eventually(async () => s.hooks().find((e): e is DialogStatusChangedEvent => e.event === 'dialog_status_changed'));
    assert.equal(typeof status.eventId, 'string');
    assert.deepEqual(status, {
      event: 'dialog_status_changed',
      eventId: status.eventId,
      timestamp: answered.timestamp,
      chat: asked.chat,
      settings: EVENT_SETTINGS,
      status: {
        type: 'task',
        previous: 'not_done',
        current: 'done',
        changedAt: answered.timestamp,
        source: { type: 'trigger', operatorEmail: null },
      },
    });
    const list = await t.api<ChatList>(s.user.key, '/chats/chat');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.chats.map((chat) => [chat.id, chat.isTriggered]),
      [[asked.chat.id, true]],
    );

    // A second trigger in the done chat: task_trigger again, the status does not change.
    await s.send('task-1', 'Thanks! Is it still booked?');
    await s.nthReply(2);
    const triggers = await eventually(async () => {
      const found = s.hooks().filter((e): e is TaskTriggerEvent => e.event === 'task_trigger');
      return found.length === 2 && found;
    });
    assert.equal(triggers[1]?.summary, 'Booking confirmed again.');
    assert.equal(triggers[1]?.message.text, 'Thanks! Is it still booked?');
    assert.deepEqual(
      (await s.stored()).map((e) => e.event),
      ['new_messages', 'new_messages', 'task_trigger', 'dialog_status_changed', 'new_messages', 'new_messages', 'task_trigger'],
    );
    assert.equal(s.fake.requests.length, 4);
  });

  test('HTTP 500, then an answer: the retry gets the reply; no failure is recorded', async () => {
    const s = await setUp();
    s.fake.script(COMPLETIONS, reply.status(500), reply.text('Sorry for the wait: how can I help?'));
    await s.send('retry-1', 'Hello?');
    const answered = await s.nthReply(1, 15_000);
    assert.equal(answered.messages[0]?.text, 'Sorry for the wait: how can I help?');
    const [one, two] = s.fake.requests;
    assert.equal(s.fake.requests.length, 2);
    assert.deepEqual(two?.json, one?.json, 'the same request again');
    assert.ok((two?.at ?? 0) - (one?.at ?? 0) >= 900, 'after a pause of about 1 s');
    assert.deepEqual((await s.failures()).body, { failures: [] });
  });

  test('no answer within timeoutSeconds: 3 attempts, a recorded failure, no reply; the next message is answered', async () => {
    const s = await setUp({ engine: { timeoutSeconds: 1 } });
    s.fake.script(COMPLETIONS, reply.late(3_000, reply.text('Too late')));
    await s.send('slow-1', 'Anyone there?');
    const listed = await eventually(async () => {
      const res = await s.failures();
      return res.body.failures.length > 0 && res;
    }, 15_000);
    assert.equal(listed.status, 200);
    assert.equal(s.fake.requests.length, 3, 'three attempts');
    const chatId = s.messageEvents('user')[0]?.chat.id;
    const [failure] = listed.body.failures;
    assert.deepEqual(listed.body.failures, [
      {
        id: failure?.id,
        channelId: s.channelId,
        chatId,
        error: `${COMPLETIONS}: no answer within 1000 ms (after 3 attempts)`,
        createdAt: failure?.createdAt,
      },
    ]);
    assert.equal(typeof failure?.id, 'string');
    assert.ok(Date.parse(failure?.createdAt ?? '') > 0);
    assert.deepEqual(
      (await t.console<{ failures: Failure[] }>(s.user.token, 'GET', '/agent/failures/', { query: { channelId: s.channelId } })).body,
      listed.body,
    );
    // Another account sees none of it.
    const other = await t.createConsoleUser();
    assert.deepEqual((await s.failures(other)).body, { failures: [] });
    // No reply was stored or sent.
    assert.deepEqual(
      (await s.stored()).map((e) => e.event),
      ['new_messages'],
    );
    assert.equal(s.messageEvents('assistant').length, 0);

    // The chat is not blocked: the next message is answered, the failed one as history only.
    s.fake.script(COMPLETIONS, reply.text('I am here now.'));
    await s.send('slow-1', 'Hello again');
    const answered = await s.nthReply(1);
    assert.equal(answered.messages[0]?.text, 'I am here now.');
    assert.equal(s.fake.requests.length, 4);
    assert.deepEqual(bodyOf(s.fake.requests[3]).messages.slice(1), [
      { role: 'user', content: 'Anyone there?' },
      { role: 'user', content: 'Hello again' },
    ]);
    assert.equal((await s.failures()).body.failures.length, 1);
  });

  test('a malformed answer or one with no text: a recorded failure at once (no retry), no reply', async () => {
    const s = await setUp();
    s.fake.script(COMPLETIONS, reply.json({ choices: [] }));
    await s.send('odd-1', 'Hello?');
    const first = await eventually(async () => {
      const res = await s.failures();
      return res.body.failures.length > 0 && res.body.failures;
    }, 10_000);
    assert.equal(first[0]?.error, `${COMPLETIONS}: no choices[0].message in the answer`);
    assert.equal(s.fake.requests.length, 1);
    s.fake.script(COMPLETIONS, reply.json({ choices: [{ message: { role: 'assistant', content: null } }] }));
    await s.send('odd-2', 'Hello?');
    const second = await eventually(async () => {
      const res = await s.failures();
      return res.body.failures.length > 1 && res.body.failures;
    }, 10_000);
    assert.equal(second[0]?.error, `${COMPLETIONS}: the model answered with no text`);
    assert.equal(s.messageEvents('assistant').length, 0);
  });

  test('an image goes as an image part of the message being answered, as plain text in later history', async () => {
    const s = await setUp();
    s.fake.script(COMPLETIONS, reply.text('A lovely blue pixel.'), reply.text('You are welcome.'));
    const image = png();
    await s.sendFiles('img-1', 'What is on this photo?', [{ filename: 'photo.png', type: 'image/png', bytes: image }]);
    await s.nthReply(1);
    assert.deepEqual(bodyOf(s.fake.requests[0]).messages.slice(1), [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is on this photo?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${image.toString('base64')}` } },
        ],
      },
    ]);
    await s.send('img-1', 'Thanks');
    await s.nthReply(2);
    assert.deepEqual(bodyOf(s.fake.requests[1]).messages.slice(1), [
      { role: 'user', content: 'What is on this photo?' },
      { role: 'assistant', content: 'A lovely blue pixel.' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  test('a voice message with transcriptionModel: /audio/transcriptions with the file, the transcript to the model', async () => {
    const s = await setUp({ engine: { transcriptionModel: 'whisper-1' } });
    s.fake.script(TRANSCRIPTIONS, reply.json({ text: 'I would like a table for four tonight.' }));
    s.fake.script(COMPLETIONS, reply.text('Booked for four tonight.'));
    const voice = mp3WithId3();
    await s.sendFiles('voice-1', 'Listen, please', [{ filename: 'voice.mp3', type: 'audio/mpeg', bytes: voice }]);
    const answered = await s.nthReply(1);
    assert.equal(answered.messages[0]?.text, 'Booked for four tonight.');
    assert.deepEqual(
      s.fake.requests.map((request) => request.path),
      [TRANSCRIPTIONS, COMPLETIONS],
    );
    const [transcription] = s.fake.to(TRANSCRIPTIONS);
    assert.ok(transcription);
    assert.equal(transcription.method, 'POST');
    assert.equal(transcription.headers.authorization, `Bearer ${API_KEY}`);
    assert.match(String(transcription.headers['content-type']), /^multipart\/form-data; boundary=/);
    const form = await formOf(transcription);
    assert.deepEqual([...form.keys()].sort(), ['file', 'model']);
    assert.equal(form.get('model'), 'whisper-1');
    const file = form.get('file');
    assert.ok(file instanceof Blob, 'file is a file part');
    assert.equal((file as File).name, 'voice.mp3');
    assert.equal(file.type, 'audio/mpeg');
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), voice);
    assert.deepEqual(bodyOf(s.fake.to(COMPLETIONS)[0]).messages.slice(1), [
      { role: 'user', content: 'Listen, please\n[Voice message: I would like a table for four tonight.]' },
    ]);
  });

  test('a voice message without transcriptionModel: no transcription, the model is told a voice message came', async () => {
    const s = await setUp();
    s.fake.script(COMPLETIONS, reply.text('Could you write it, please?'));
    await s.sendFiles('voice-2', 'Listen, please', [{ filename: 'voice.mp3', type: 'audio/mpeg', bytes: mp3WithId3() }]);
    const answered = await s.nthReply(1);
    assert.equal(answered.messages[0]?.text, 'Could you write it, please?');
    assert.deepEqual(
      s.fake.requests.map((request) => request.path),
      [COMPLETIONS],
    );
    assert.deepEqual(bodyOf(s.fake.requests[0]).messages.slice(1), [{ role: 'user', content: `Listen, please\n${VOICE_NOTE}` }]);
  });

  test('console test chat: the reply and the trigger, no chat stored and no event', async () => {
    const s = await setUp();
    s.fake.script(
      COMPLETIONS,
      reply.text('Hello! How can I help you?'),
      reply.completeTask('call_t', 'The customer booked a table.'),
      reply.text('Booked!'),
    );
    const testChat = (text: string) => t.console(s.user.token, 'POST', `/chat/test/${s.channelId}/`, { body: { text } });
    const plain = await testChat('Hi');
    assert.equal(plain.status, 200, plain.text);
    assert.deepEqual(plain.body, { reply: 'Hello! How can I help you?', taskComplete: false, summary: null, passages: [] });
    assert.deepEqual(bodyOf(s.fake.requests[0]).messages.slice(1), [{ role: 'user', content: 'Hi' }]);
    assert.equal(s.fake.requests[0]?.headers.authorization, `Bearer ${API_KEY}`);
    const booked = await testChat('A table for two at 8, please');
    assert.equal(booked.status, 200, booked.text);
    assert.deepEqual(booked.body, { reply: 'Booked!', taskComplete: true, summary: 'The customer booked a table.', passages: [] });
    assert.equal(s.fake.requests.length, 3);
    assert.equal(bodyOf(s.fake.requests[2]).tool_choice, 'none');

    const list = await t.api<ChatList>(s.user.key, '/chats/chat');
    assert.equal(list.status, 200);
    assert.deepEqual([list.body.count, list.body.chats], [0, []]);
    assert.deepEqual(await s.stored(), []);
    assert.equal(s.r.requests.length, 0);
  });

  test('console test chat: 502 when the model server keeps failing or refuses, 404, 400, 401', async () => {
    const s = await setUp();
    s.fake.script(COMPLETIONS, reply.status(500));
    const testChat = (text: unknown, token = s.user.token, channelId = s.channelId) =>
      t.console(token, 'POST', `/chat/test/${channelId}/`, { body: text });
    const started = Date.now();
    const failed = await testChat({ text: 'Hi' });
    assert.equal(failed.status, 502, failed.text);
    assert.deepEqual(failed.body, { message: `The agent engine failed: ${COMPLETIONS}: HTTP 500 (after 3 attempts)`, statusCode: 502 });
    assert.equal(s.fake.requests.length, 3);
    assert.ok(Date.now() - started >= 2_900, 'pauses of 1 s and 2 s');

    // A 4xx is not retried.
    s.fake.script(COMPLETIONS, reply.status(401, { error: { message: 'Incorrect API key provided' } }));
    const refused = await testChat({ text: 'Hi' });
    assert.equal(refused.status, 502, refused.text);
    assert.deepEqual(refused.body, {
      message: `The agent engine failed: ${COMPLETIONS}: HTTP 401: {"error":{"message":"Incorrect API key provided"}}`,
      statusCode: 502,
    });
    assert.equal(s.fake.requests.length, 4);

    const other = await t.createConsoleUser();
    for (const [token, channelId] of [
      [s.user.token, 'cc:no-such-channel'],
      [other.token, s.channelId],
    ] as const) {
      const res = await testChat({ text: 'Hi' }, token, channelId);
      assert.equal(res.status, 404, res.text);
      assert.deepEqual(res.body, { message: 'Channel not found', statusCode: 404 });
    }
    const extra = await testChat({ text: 'Hi', temperature: 0 });
    assert.equal(extra.status, 400);
    assert.deepEqual(extra.body, { message: ['property temperature should not exist'], statusCode: 400 });
    const anonymous = await t.request('POST', `/console/v1/chat/test/${s.channelId}/`, { body: { text: 'Hi' } });
    assert.equal(anonymous.status, 401);
    assert.equal(s.fake.requests.length, 4, 'no request for the refused calls');
    // The console test records no failure.
    assert.deepEqual((await s.failures()).body, { failures: [] });
  });
});

describe('private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS off)', { concurrency: true }, () => {
  let t: TestApp;
  let fake: FakeLlm;
  before(async () => {
    t = await startTestApp();
    fake = await startFakeLlm();
    fake.script(COMPLETIONS, reply.text('should never be asked'));
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  /** A channel whose engine points at `baseUrl`, written as it could have been stored before saves were checked. */
  async function channelAt(baseUrl: string) {
    const user = await t.createConsoleUser();
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Local model' } });
    assert.equal(channel.status, 201, channel.text);
    const engine = { kind: 'openai-compatible', baseUrl, model: 'test-model', timeoutSeconds: 1, transcriptionModel: null };
    // Beside the app (it refuses loopback model servers), announced as the app announces its changes.
    await t.database.db.execute(
      sql`WITH changed AS (update channels set agent_engine = ${JSON.stringify(engine)}::jsonb where id = ${channel.body.id} returning id)
          SELECT pg_notify('parley_cache', 'channel:' || id) FROM changed`,
    );
    return { user, channelId: channel.body.id };
  }

  test('a model server on 127.0.0.1 or a name resolving to loopback is refused when saved', async () => {
    const user = await t.createConsoleUser();
    for (const baseUrl of [`${fake.url}/v1`, `http://localhost:${fake.port}/v1`]) {
      const res = await t.console<{ message: string }>(user.token, 'POST', '/channel/custom/connect/', {
        body: { name: 'Local model', agentEngine: { kind: 'openai-compatible', baseUrl, model: 'test-model' } },
      });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.message, /^agentEngine\.baseUrl points to a private, loopback or link-local address \((127\.0\.0\.1|::1)\)/);
    }
  });

  test('a stored model server on 127.0.0.1 is refused at use: 502 naming the private network, no request made', async () => {
    const { user, channelId } = await channelAt(`${fake.url}/v1`);
    const res = await t.console<{ message: string; statusCode: number }>(user.token, 'POST', `/chat/test/${channelId}/`, { body: { text: 'Hi' } });
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.statusCode, 502);
    assert.match(res.body.message, /^The agent engine failed: .*private network/);
    assert.equal(fake.requests.length, 0);
  });

  test('a stored host name resolving to loopback is refused at use too', async () => {
    const { user, channelId } = await channelAt(`http://localhost:${fake.port}/v1`);
    const res = await t.console<{ message: string; statusCode: number }>(user.token, 'POST', `/chat/test/${channelId}/`, { body: { text: 'Hi' } });
    assert.equal(res.status, 502, res.text);
    assert.match(res.body.message, /^The agent engine failed: .*private network/);
    assert.equal(fake.requests.length, 0);
  });

  test('a customer message in such a channel: a recorded failure, no request made', async () => {
    const { user, channelId } = await channelAt(`${fake.url}/v1`);
    const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId, externalChatId: 'private-1', role: 'user', text: 'Hi' },
    });
    assert.equal(sent.status, 201, sent.text);
    const failures = await eventually(async () => {
      const res = await t.console<{ failures: Failure[] }>(user.token, 'GET', '/agent/failures/');
      return res.body.failures.length > 0 && res.body.failures;
    }, 10_000);
    assert.equal(failures.length, 1);
    assert.equal(failures[0]?.channelId, channelId);
    assert.match(failures[0]?.error ?? '', /private network/);
    assert.equal(fake.requests.length, 0);
    assert.deepEqual(
      (await eventsOf(t.database.db, channelId)).map((e) => e.kind),
      ['new_messages'],
    );
  });
});
