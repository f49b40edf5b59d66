// `npm run eval:actions`: agent actions end to end (issue #43). The whole app on a real port (PGlite in memory, the
// built-in sentence encoder as a server runs by default), a fake shop API (orders by number, only the customer's own;
// cancelling one; changing its delivery address) and a rule-based fake model server speaking Chat Completions, both
// real local HTTP servers. The shop's knowledge base (actions-fixture.json) answers order questions with actions; 66
// customer conversations (numbers inside sentences, missing numbers, wrong formats, another customer's order,
// customers with no verified identity, writes confirmed and declined, plain questions) go through two widget channels,
// one with the knowledge-base engine (no model) and one with the openai-compatible engine. Each conversation is a
// verified visitor of its own (its orders are theirs; order 10483 is another customer's) or an anonymous one.
//
// A simulated customer sends the conversation's first message; when the agent asks them to choose (a clarification)
// they pick the option of the entry they meant (else `0`); when it asks something else (a parameter, a yes) they send
// the conversation's next scripted answer; the agent's last reply is then judged: the order's real status, the shop's
// "not found" answer for another customer's order, the cancellation or the new address, "All right, I have not done
// it." for a declined write, the handoff for an anonymous customer, the entry's answer for a plain question.
// `resolved` is the share of conversations so ended (a customer who never gives a usable number cannot be resolved).
// From the shop's own request log: calls with a parameter the customer did not give (a number not in their messages,
// a customer id that is not their verified identity), calls for anonymous customers, and writes without a yes.
//   --check    exit 1 when the no-model path resolves under 0.80, or any safety count is not 0 (either path)
//   --verbose  every conversation's replies
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { handoffText, fallbackText, actionDeclinedText } from '../src/agent/agent-texts.ts';
import { startFakeShop, ORDERS, type FakeShop } from '../test/support/fake-shop.ts';
import { startTestApp, type TestApp } from '../test/support/harness.ts';

interface Expectation {
  kind: 'status' | 'error' | 'cancelled' | 'declined' | 'address' | 'answer' | 'handoff' | 'fallback';
  order?: string;
  address?: string;
}
interface Conversation {
  say: string;
  then?: string[];
  anonymous?: boolean;
  entry: string;
  expect: Expectation;
}
interface Fixture {
  name: string;
  knowledge: { question: string; synonyms: string[]; answer: string; action?: string }[];
  conversations: Conversation[];
}
interface Outcome {
  resolved: boolean;
  replies: string[];
  wrongParameter: string[];
  unverified: number;
  writesWithoutYes: number;
  turns: number;
}

const args = new Set(process.argv.slice(2));
const SITE = 'https://shop.example';
const IDENTITY_SECRET = 'eval-identity-secret-0123456789';
const SHOP_KEY = 'eval-shop-key-0123456789';
const ERROR_ANSWER = "I couldn't find that order in your account.";
const ASK_NUMBER = 'What is your order number? It has 5 digits.';
const ASK_ADDRESS = 'What is the new delivery address?';
const MAX_TURNS = 8;

const fixture = JSON.parse(await readFile(new URL('./actions-fixture.json', import.meta.url), 'utf8')) as Fixture;

/** The actions of the shop (the customer is the verified identity), as the console creates them. */
function actionsOf(shop: FakeShop) {
  const customer = { name: 'customer', description: 'the signed-in customer', type: 'string', required: true, source: 'verified' };
  const orderNumber = { name: 'order_number', description: 'the 5-digit order number', type: 'string', pattern: '\\d{5}', required: true, prompt: ASK_NUMBER, source: 'customer' };
  const headers = { Authorization: { secret: `Bearer ${SHOP_KEY}` } };
  const orders = `${shop.url}/api/customers/{{customer}}/orders/{{order_number}}`;
  return [
    { name: 'order_status', description: 'Look up where an order is', kind: 'read', method: 'GET', url: orders, headers, parameters: [customer, orderNumber], answer: 'Order {{id}} is {{status}}, arriving {{eta}}.', errorAnswer: ERROR_ANSWER },
    { name: 'cancel_order', description: 'Cancel the order', kind: 'write', method: 'POST', url: `${orders}/cancel`, headers, parameters: [customer, orderNumber], answer: 'Order {{id}} is now {{status}}.', errorAnswer: ERROR_ANSWER },
    {
      name: 'change_address',
      description: 'Change the delivery address',
      kind: 'write',
      method: 'POST',
      url: `${orders}/address`,
      headers,
      body: { address: '{{address}}' },
      parameters: [customer, orderNumber, { name: 'address', description: 'the new delivery address', type: 'string', required: true, prompt: ASK_ADDRESS, source: 'customer' }],
      answer: 'The delivery address of order {{id}} is now {{address}}.',
      errorAnswer: ERROR_ANSWER,
    },
  ];
}

/** What the agent's last reply must be. */
function expectedReply(expect: Expectation, entry: string): string {
  const order = ORDERS.find((o) => o.id === expect.order);
  switch (expect.kind) {
    case 'status':
      return `Order ${order?.id} is ${order?.status}, arriving ${order?.eta}.`;
    case 'error':
      return ERROR_ANSWER;
    case 'cancelled':
      return `Order ${expect.order} is now cancelled.`;
    case 'address':
      return `The delivery address of order ${expect.order} is now ${expect.address}.`;
    case 'declined':
      return actionDeclinedText('en');
    case 'handoff':
      return handoffText('en');
    case 'answer':
      return fixture.knowledge.find((k) => k.question === entry)?.answer ?? '';
    case 'fallback':
      return fallbackText('en');
  }
}

const isClarification = (reply: string) => reply.startsWith('Did you mean one of these?');
/** The agent asked something (a parameter, a yes, to say it another way): the customer answers if they can. */
const asksSomething = (reply: string) => reply.includes('?');

/**
 * The fake model: a Chat Completions server that reads the conversation as a helpful model would, by rules — the
 * intent from the customer's first message, the order number from the customer's latest message that has one, the
 * address when it asked for one — calls the action's tool (or hands off when it is not offered), and words the tool's
 * result the way the actions' answers do.
 */
async function startFakeModel(): Promise<{ url: string; requests: number; close(): Promise<void> }> {
  type Message = { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };
  const state = { requests: 0 };
  const text = (content: string) => ({ content });
  const call = (name: string, args: object) => ({ content: null, tool_calls: [{ id: `call_${state.requests}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
  function decide(body: { messages: Message[]; tools?: { function: { name: string } }[] }) {
    // A request without tools is a handoff's summary (the agent asks for three lines after handing a chat over).
    if (!body.tools) return text('Request: the customer asked about an order.\nAgent: it handed the chat over.\nReason: a person is needed.');
    const tools = new Set(body.tools.map((tool) => tool.function.name));
    const messages = body.messages;
    const last = messages.at(-1);
    if (last?.role === 'tool') {
      const content = String(last.content);
      const name = [...messages].reverse().find((m) => m.tool_calls)?.tool_calls?.[0]?.function.name;
      if (content.startsWith('Invalid arguments')) return text(ASK_NUMBER);
      if (content.startsWith('The customer did not confirm')) return text(actionDeclinedText('en'));
      if (content.startsWith('Not called')) return text('Sorry, I could not check that right now.');
      const json = JSON.parse(content) as Record<string, string>;
      if (json.outcome) return text(ERROR_ANSWER);
      if (name === 'cancel_order') return text(`Order ${json.id} is now ${json.status}.`);
      if (name === 'change_address') return text(`The delivery address of order ${json.id} is now ${json.address}.`);
      return text(`Order ${json.id} is ${json.status}, arriving ${json.eta}.`);
    }
    const said = messages.filter((m) => m.role === 'user').map((m) => String(m.content));
    const first = said[0] ?? '';
    const intent = /cancel/i.test(first) ? 'cancel_order' : /address/i.test(first) ? 'change_address' : /\border\b|package|parcel|track|status|\bshipped\b|arriv/i.test(first) ? 'order_status' : undefined;
    if (!intent) {
      const system = String(messages[0]?.content ?? '');
      return text(/\nA: (.*)/.exec(system)?.[1] ?? "I'm not sure.");
    }
    if (!tools.has(intent)) return call('hand_off', { reason: 'The customer is not signed in, so their orders cannot be looked up.' });
    const numbers = said.map((s) => /\d{4,}/.exec(s.replace(/(\d),(\d)/g, '$1$2'))?.[0]).filter((n): n is string => n !== undefined);
    const number = numbers.at(-1);
    if (number === undefined) return text(ASK_NUMBER);
    if (intent !== 'change_address') return call(intent, { order_number: number });
    const asked = [...messages].reverse().find((m) => m.role === 'assistant' && typeof m.content === 'string');
    if (asked?.content !== ASK_ADDRESS) return text(ASK_ADDRESS);
    return call(intent, { order_number: number, address: said.at(-1) });
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests += 1;
      const message = decide(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'eval', object: 'chat.completion', model: 'eval-model', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const shop = await startFakeShop();
const model = await startFakeModel();
const t: TestApp = await startTestApp({ webhookAllowPrivateNetworks: true, knowledgeEncoder: true, rateLimitMax: 1_000_000 });
let failed = false;
try {
  const owner = await t.createConsoleUser();
  const call = async <T>(method: string, path: string, body?: unknown) => {
    const res = await t.console<T>(owner.token, method, path, body === undefined ? {} : { body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const actionIds = new Map<string, string>();
  for (const action of actionsOf(shop)) actionIds.set(action.name, (await call<{ id: string }>('POST', '/actions/', action)).id);
  const base = await call<{ id: string }>('POST', '/knowledge-bases', { name: 'Shop', language: 'en' });
  for (const { action, ...entry } of fixture.knowledge) {
    await call('POST', `/knowledge-bases/${base.id}/entries`, { ...entry, ...(action ? { actionId: actionIds.get(action) } : {}) });
  }
  const widget = { allowedOrigins: [SITE], identitySecret: IDENTITY_SECRET, messagesPerMinute: 120, newVisitorsPerIpPerMinute: 1000 };
  const channels = {
    'no model': await call<{ id: string }>('POST', '/channel/widget/connect/', { name: 'No model', knowledgeBaseId: base.id, actionIds: [...actionIds.values()], widget }),
    model: await call<{ id: string }>('POST', '/channel/widget/connect/', {
      name: 'Model',
      knowledgeBaseId: base.id,
      actionIds: [...actionIds.values()],
      agentEngine: { kind: 'openai-compatible', baseUrl: `${model.url}/v1`, model: 'eval-model', timeoutSeconds: 10 },
      widget,
    }),
  };
  // The entries' sentence vectors are computed in the background, as on a server: the questions wait for them.
  for (let waited = 0; ; waited += 200) {
    const entries = await call<{ entries: unknown[] }>('GET', `/knowledge-bases/${base.id}/entries`);
    const [row] = await queryRows<{ pending: number }>(t.database.db, sql`select count(*)::int as pending from knowledge_entries where vectors_model is null`);
    if ((entries.entries.length > 0 && row?.pending === 0) || waited > 60_000) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  async function converse(channelId: string, conversation: Conversation, index: number): Promise<Outcome> {
    const identity = conversation.anonymous ? undefined : `cust-${index}`;
    // The orders as the fixture has them: the customer's own, and 10483 another customer's.
    shop.orders.clear();
    for (const order of ORDERS) shop.orders.set(order.id, { ...structuredClone(order), customer: order.customer === 'cust-bob' ? 'cust-bob' : (identity ?? 'someone-else') });
    const session = await t.request<{ token: string }>('POST', '/widget/v1/session', {
      body: { channelId, origin: SITE, ...(identity ? { identity: { identifier: identity, identifierHash: createHmac('sha256', IDENTITY_SECRET).update(identity).digest('hex') } } : {}) },
    });
    if (session.status !== 200) throw new Error(`session: ${session.status} ${session.text}`);
    const auth = { authorization: `Bearer ${session.body.token}` };
    const { conversation: chat } = (await t.request<{ conversation: { id: string } }>('POST', '/widget/v1/conversations', { headers: auth })).body;
    const agentReplies = async () =>
      (await t.request<{ messages: { from: string; text: string }[] }>('GET', '/widget/v1/messages', { headers: auth, query: { conversation: chat.id } })).body.messages.filter((m) => m.from === 'agent');
    const shopBefore = shop.requests.length;
    const said: string[] = [];
    const replies: string[] = [];
    let yeses = 0;
    const ask = async (text: string): Promise<string> => {
      const before = (await agentReplies()).length;
      said.push(text);
      const sent = await t.request('POST', '/widget/v1/messages', { body: { text }, headers: auth });
      if (sent.status !== 201) throw new Error(`send: ${sent.status} ${sent.text}`);
      for (let waited = 0; waited < 20_000; waited += 25) {
        const now = await agentReplies();
        if (now.length > before) {
          const reply = now.at(-1)?.text ?? '';
          replies.push(reply);
          return reply;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no reply to "${text}"`);
    };
    const followUps = [...(conversation.then ?? [])];
    let reply = await ask(conversation.say);
    let turns = 1;
    for (; turns < MAX_TURNS; turns += 1) {
      if (isClarification(reply)) {
        const option = reply.split('\n').find((line) => line.replace(/^\d+\.\s*/, '') === conversation.entry);
        reply = await ask(option ? (option.split('.')[0] ?? '0') : '0');
      } else if (asksSomething(reply) && followUps.length > 0) {
        const answer = followUps.shift() ?? '';
        if (reply.includes('Reply yes or no') && /^(yes|ok|sure)/i.test(answer)) yeses += 1;
        reply = await ask(answer);
      } else {
        break;
      }
    }
    // The shop's log during the conversation: every parameter must be one the customer gave or their identity.
    const calls = shop.requests.slice(shopBefore);
    const given = said.flatMap((text) => text.replace(/(\d),(\d)/g, '$1$2').match(/\d{5}/g) ?? []);
    const wrongParameter: string[] = [];
    let unverified = 0;
    let writes = 0;
    for (const request of calls) {
      const [, api, customers, customer, orders, number] = request.rawPath.split('/');
      if (api !== 'api' || customers !== 'customers' || orders !== 'orders') continue;
      if (identity === undefined) unverified += 1;
      if (decodeURIComponent(customer ?? '') !== identity || !given.includes(decodeURIComponent(number ?? ''))) wrongParameter.push(request.rawPath);
      if (request.method === 'POST') writes += 1;
    }
    const resolved = conversation.expect.kind !== 'fallback' && reply === expectedReply(conversation.expect, conversation.entry);
    return { resolved, replies, wrongParameter, unverified, writesWithoutYes: Math.max(0, writes - yeses), turns };
  }

  const results: Record<string, { resolved: number; wrong: number; unverified: number; writesWithoutYes: number; turns: number; ms: number }> = {};
  for (const [path, channel] of Object.entries(channels)) {
    const started = performance.now();
    const tally = { resolved: 0, wrong: 0, unverified: 0, writesWithoutYes: 0, turns: 0, ms: 0 };
    for (const [i, conversation] of fixture.conversations.entries()) {
      const outcome = await converse(channel.id, conversation, i);
      tally.resolved += outcome.resolved ? 1 : 0;
      tally.wrong += outcome.wrongParameter.length;
      tally.unverified += outcome.unverified;
      tally.writesWithoutYes += outcome.writesWithoutYes;
      tally.turns += outcome.turns;
      if (args.has('--verbose') || !outcome.resolved) {
        const mark = outcome.resolved ? 'ok  ' : conversation.expect.kind === 'fallback' ? 'n/a ' : 'MISS';
        process.stdout.write(`${path.padEnd(8)} ${mark} ${JSON.stringify(conversation.say)} → ${outcome.replies.map((r) => JSON.stringify(r.slice(0, 90))).join(' → ')}\n`);
      }
      if (outcome.wrongParameter.length > 0) process.stdout.write(`  wrong parameter: ${outcome.wrongParameter.join(', ')}\n`);
    }
    tally.ms = performance.now() - started;
    results[path] = tally;
  }

  const total = fixture.conversations.length;
  process.stdout.write(`\nAgent actions, ${fixture.name}: ${total} conversations per path (${fixture.conversations.filter((c) => c.anonymous).length} with no verified identity)\n\n`);
  process.stdout.write('| path | resolved | calls with a wrong or unverified parameter | calls for an unverified customer | writes without a yes | customer messages | time |\n|---|---|---|---|---|---|---|\n');
  for (const [path, r] of Object.entries(results)) {
    process.stdout.write(`| ${path} | ${r.resolved}/${total} = ${(r.resolved / total).toFixed(2)} | ${r.wrong} | ${r.unverified} | ${r.writesWithoutYes} | ${r.turns} | ${(r.ms / 1000).toFixed(1)} s |\n`);
  }
  process.stdout.write(`\nTargets (issue #43): no model resolved ≥ 0.80; no call with a wrong or unverified parameter; no write without a yes.\n`);
  const noModel = results['no model'];
  const ok =
    noModel !== undefined &&
    noModel.resolved / total >= 0.8 &&
    Object.values(results).every((r) => r.wrong === 0 && r.unverified === 0 && r.writesWithoutYes === 0);
  if (!ok) {
    process.stdout.write('A target is not met.\n');
    if (args.has('--check')) failed = true;
  }
} finally {
  await t.close();
  await shop.close();
  await model.close();
}
if (failed) process.exit(1);
