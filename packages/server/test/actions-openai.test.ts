// Agent actions with a model (issue #43), end to end: customer messages through the public API and the widget, the
// reply job asking a real local model server (Chat Completions) that calls the actions' function tools, a fake shop
// API on a local port. Each action is a tool with the JSON Schema of its customer parameters (one needing a verified
// identity only in a chat that has one); bad arguments go back to the model, never to the shop; at most 3 runs per
// customer message; a write runs only after the customer answers yes to the server's own question, whatever the model
// says; the shop's JSON is the tool's result; no secret ever reaches the model.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from './support/events.ts';
import { reply, startFakeLlm, type FakeLlm, type LlmRequest } from './support/fake-llm.ts';
import { startFakeShop, type FakeShop } from './support/fake-shop.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

const COMPLETIONS = '/v1/chat/completions';
const SHOP_KEY = 'shop-secret-key-0123456789abcdef';
const IDENTITY_SECRET = 'widget-identity-secret-0123456789';
const SITE = 'https://shop.example';

type ModelMessage = { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string };
interface Tool {
  type: string;
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
interface CompletionBody {
  messages: ModelMessage[];
  tools: Tool[];
  tool_choice?: string;
}
interface HistoryItem {
  kind: string;
  role?: string;
  text?: string;
  action?: { name: string };
  parameters?: Record<string, unknown>;
  outcome?: string;
  error?: string | null;
}

const bodyOf = (request: LlmRequest | undefined): CompletionBody => {
  assert.ok(request, 'the model server got the request');
  return request.json as CompletionBody;
};

describe('openai-compatible engine with actions', () => {
  let t: TestApp;
  let shop: FakeShop;
  let fake: FakeLlm;
  let user: Awaited<ReturnType<TestApp['createConsoleUser']>>;
  let channelId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    shop = await startFakeShop();
    fake = await startFakeLlm();
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    user = await t.createConsoleUser();
    const create = async (body: Record<string, unknown>) => {
      const res = await t.console<{ id: string; name: string }>(user.token, 'POST', '/actions/', { body });
      assert.equal(res.status, 201, res.text);
      ids[res.body.name] = res.body.id;
    };
    const orderNumber = { name: 'order_number', description: 'The 5-digit order number', type: 'string', pattern: '\\d{5}', required: true, source: 'customer' };
    const headers = { 'X-Api-Key': { secret: SHOP_KEY } };
    await create({ name: 'order_lookup', description: 'Look up an order by its number', kind: 'read', method: 'GET', url: `${shop.url}/api/orders/{{order_number}}`, headers, parameters: [orderNumber], answer: '{{status}}' });
    await create({
      name: 'cancel_order',
      description: 'Cancel the order',
      kind: 'write',
      method: 'POST',
      url: `${shop.url}/api/customers/{{customer}}/orders/{{order_number}}/cancel`,
      headers,
      parameters: [{ name: 'customer', description: 'the customer', type: 'string', required: true, source: 'verified' }, orderNumber],
      answer: 'Cancelled.',
    });
    await create({
      name: 'my_order',
      description: "Look up one of the signed-in customer's orders",
      kind: 'read',
      method: 'GET',
      url: `${shop.url}/api/customers/{{customer}}/orders/{{order_number}}`,
      headers,
      parameters: [{ name: 'customer', description: 'the customer', type: 'string', required: true, source: 'verified' }, orderNumber],
      answer: '{{status}}',
    });
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: {
        name: 'API',
        agentEngine: { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', apiKey: 'sk-test', timeoutSeconds: 10 },
        actionIds: Object.values(ids),
      },
    });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.body.id;
  });
  after(async () => {
    await t.close();
    await fake.close();
    await shop.close();
  });

  const send = async (chat: string, text: string) => {
    const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId, externalChatId: chat, role: 'user', text },
    });
    assert.equal(res.status, 201, res.text);
  };
  const history = async (chat: string) => {
    const list = await t.console<{ chats: { id: string; chatId: string }[] }>(user.token, 'GET', '/chat/all-chats/', { query: { channelId } });
    const id = list.body.chats.find((c) => c.chatId === chat)?.id ?? '';
    return (await t.console<{ messages: HistoryItem[] }>(user.token, 'GET', `/chat/messages/${id}/`)).body.messages;
  };
  /** The agent's replies in the chat, once there are `n`. */
  const replies = (chat: string, n: number) =>
    eventually(async () => {
      const found = (await history(chat)).filter((m) => m.kind === 'message' && m.role === 'assistant').map((m) => m.text);
      return found.length >= n && found;
    });

  test('a read: the tools offered (no action needing a verified identity here), the shop called, its JSON the tool result', async () => {
    const before = fake.requests.length;
    fake.script(COMPLETIONS, reply.tools([{ id: 'call_a', name: 'order_lookup', arguments: { order_number: '10482' } }]), reply.text('Your order 10482 has shipped.'));
    await send('read-1', 'Where is my order 10482?');
    assert.deepEqual(await replies('read-1', 1), ['Your order 10482 has shipped.']);
    const [first, second] = fake.requests.slice(before).map(bodyOf);
    // cancel_order and my_order need a verified customer: an API channel's chat has none.
    assert.deepEqual(first?.tools.map((tool) => tool.function.name), ['complete_task', 'hand_off', 'order_lookup']);
    assert.deepEqual(first?.tools.find((tool) => tool.function.name === 'order_lookup'), {
      type: 'function',
      function: {
        name: 'order_lookup',
        description: 'Look up an order by its number',
        parameters: {
          type: 'object',
          properties: { order_number: { type: 'string', description: 'The 5-digit order number', pattern: '^(?:\\d{5})$' } },
          required: ['order_number'],
          additionalProperties: false,
        },
      },
    });
    const [call, result] = second?.messages.slice(-2) ?? [];
    assert.equal(call?.tool_calls?.[0]?.function.name, 'order_lookup');
    assert.equal(result?.role, 'tool');
    assert.equal(result?.tool_call_id, 'call_a');
    assert.equal(JSON.parse(String(result?.content)).status, 'shipped');
    assert.equal(shop.requests.at(-1)?.rawPath, '/api/orders/10482');
    const runs = (await history('read-1')).filter((item) => item.kind === 'action');
    assert.deepEqual(runs.map((run) => [run.action?.name, run.outcome, run.parameters]), [['order_lookup', 'ok', { order_number: '10482' }]]);
    for (const request of fake.requests) assert.ok(!request.raw.toString('utf8').includes(SHOP_KEY), 'no secret reaches the model');
  });

  test("bad arguments go back to the model as the tool's result, never to the shop", async () => {
    const before = fake.requests.length;
    const calls = shop.requests.length;
    fake.script(COMPLETIONS, reply.tools([{ id: 'call_b', name: 'order_lookup', arguments: { order_number: '12' } }]), reply.text('Could you check the order number? It has 5 digits.'));
    await send('bad-1', 'Where is order 12?');
    assert.deepEqual(await replies('bad-1', 1), ['Could you check the order number? It has 5 digits.']);
    const second = bodyOf(fake.requests[before + 1]);
    assert.equal(
      second.messages.at(-1)?.content,
      'Invalid arguments: order_number: does not match the pattern \\d{5}. Nothing was called; ask the customer if a value is missing or wrong.',
    );
    assert.equal(shop.requests.length, calls);
    const runs = (await history('bad-1')).filter((item) => item.kind === 'action');
    assert.deepEqual(runs.map((run) => [run.outcome, run.error]), [['invalid', 'order_number: does not match the pattern \\d{5}']]);
  });

  test('at most 3 action runs per customer message: the 4th call is refused, then the model must answer', async () => {
    const before = fake.requests.length;
    const calls = shop.requests.length;
    const call = (id: string) => ({ id, name: 'order_lookup', arguments: { order_number: '10482' } });
    fake.script(COMPLETIONS, reply.tools([call('c1'), call('c2')]), reply.tools([call('c3'), call('c4')]), reply.text('Checked it three times: shipped.'));
    await send('limit-1', 'Where is 10482? Check again and again.');
    assert.deepEqual(await replies('limit-1', 1), ['Checked it three times: shipped.']);
    assert.equal(shop.requests.length - calls, 3);
    const bodies = fake.requests.slice(before).map(bodyOf);
    assert.equal(bodies.length, 3);
    assert.equal(bodies[2]?.messages.at(-1)?.content, 'Not called: at most 3 action calls per customer message.');
    assert.equal(bodies[2]?.tool_choice, 'none', 'with the limit reached, the model may call no tool');
  });

  test("a write runs only after the customer's yes to the server's own question, whatever the model says", async () => {
    const widgetChannel = await t.console<{ id: string }>(user.token, 'POST', '/channel/widget/connect/', {
      body: {
        name: 'Site',
        agentEngine: { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', timeoutSeconds: 10 },
        actionIds: [ids.cancel_order, ids.my_order],
        widget: { allowedOrigins: [SITE], identitySecret: IDENTITY_SECRET, messagesPerMinute: 120 },
      },
    });
    assert.equal(widgetChannel.status, 201, widgetChannel.text);
    const session = await t.request<{ token: string }>('POST', '/widget/v1/session', {
      body: { channelId: widgetChannel.body.id, origin: SITE, identity: { identifier: 'cust-ada', identifierHash: createHmac('sha256', IDENTITY_SECRET).update('cust-ada').digest('hex') } },
    });
    const auth = { authorization: `Bearer ${session.body.token}` };
    const agentTexts = async () =>
      (await t.request<{ messages: { from: string; text: string }[] }>('GET', '/widget/v1/messages', { headers: auth })).body.messages.filter((m) => m.from === 'agent').map((m) => m.text);
    const ask = async (text: string, n: number) => {
      assert.equal((await t.request('POST', '/widget/v1/messages', { body: { text }, headers: auth })).status, 201);
      return eventually(async () => {
        const texts = await agentTexts();
        return texts.length >= n && texts.at(-1);
      });
    };

    // The verified customer's own orders: the identity fills `customer`; the model cannot set it.
    let before = fake.requests.length;
    fake.script(COMPLETIONS, reply.tools([{ id: 'm1', name: 'my_order', arguments: { order_number: '10482', customer: 'cust-bob' } }]), reply.tools([{ id: 'm2', name: 'my_order', arguments: { order_number: '10482' } }]), reply.text('Shipped.'));
    assert.equal(await ask('Where is my order 10482?', 1), 'Shipped.');
    const bodies = fake.requests.slice(before).map(bodyOf);
    assert.deepEqual(bodies[0]?.tools.map((tool) => tool.function.name), ['complete_task', 'hand_off', 'cancel_order', 'my_order'], 'offered in a chat with a verified identity');
    assert.deepEqual(bodies[0]?.tools.find((tool) => tool.function.name === 'my_order')?.function.parameters.properties, {
      order_number: { type: 'string', description: 'The 5-digit order number', pattern: '^(?:\\d{5})$' },
    }, 'a verified parameter is never shown to the model');
    assert.equal(bodies[1]?.messages.at(-1)?.content, "Invalid arguments: customer: is the customer's verified identity and cannot be given. Nothing was called; ask the customer if a value is missing or wrong.");
    assert.equal(shop.requests.at(-1)?.rawPath, '/api/customers/cust-ada/orders/10482');
    assert.ok(!shop.requests.some((r) => r.rawPath.includes('cust-bob')));

    // The model asks to cancel and says it is done: the server asks instead, nothing is sent.
    const calls = shop.requests.length;
    before = fake.requests.length;
    fake.script(COMPLETIONS, reply.tools([{ id: 'w1', name: 'cancel_order', arguments: { order_number: '20001' } }], 'Done, I cancelled it!'));
    assert.equal(await ask('Cancel my order 20001 please', 2), 'Shall I cancel the order for order number 20001? Reply yes or no.');
    assert.equal(shop.requests.length, calls, 'no call before the yes');
    fake.script(COMPLETIONS, reply.text('Your order 20001 is cancelled.'));
    assert.equal(await ask('yes', 3), 'Your order 20001 is cancelled.');
    assert.deepEqual([shop.requests.at(-1)?.method, shop.requests.at(-1)?.rawPath], ['POST', '/api/customers/cust-ada/orders/20001/cancel']);
    const afterYes = bodyOf(fake.requests.at(-1));
    const [toolCall, toolResult] = afterYes.messages.slice(-2);
    assert.deepEqual(toolCall?.tool_calls?.[0]?.function, { name: 'cancel_order', arguments: '{"order_number":"20001"}' });
    assert.equal(JSON.parse(String(toolResult?.content)).status, 'cancelled');

    // No: declined, the model is told, nothing is sent.
    const count = shop.requests.length;
    fake.script(COMPLETIONS, reply.tools([{ id: 'w2', name: 'cancel_order', arguments: { order_number: '10482' } }]));
    assert.equal(await ask('and cancel 10482 too', 4), 'Shall I cancel the order for order number 10482? Reply yes or no.');
    fake.script(COMPLETIONS, reply.text('OK, I left it as it is.'));
    assert.equal(await ask('no, keep it', 5), 'OK, I left it as it is.');
    assert.equal(fake.requests.length > before, true);
    assert.equal(bodyOf(fake.requests.at(-1)).messages.at(-1)?.content, 'The customer did not confirm, so nothing was done. Tell them it was not done.');
    assert.equal(shop.requests.length, count, 'a declined write is never sent');
    assert.equal(shop.orders.get('10482')?.status, 'shipped');
  });
});
