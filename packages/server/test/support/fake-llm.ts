// A model server speaking the OpenAI protocol (Chat Completions, audio transcriptions): a real local HTTP server
// that records every request and answers from a script per path.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LlmRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** The parsed body when it was JSON. */
  json: unknown;
  at: number;
}

/** How one request is answered: a status and a JSON body, after an optional delay or once a gate opens; or never. */
export type LlmReply = { status: number; body: unknown; delayMs?: number } | { hang: true } | { gate: Promise<unknown>; next: LlmReply };

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

function completion(message: { content: string | null; tool_calls?: ToolCall[] }): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

export const reply = {
  /** An assistant message with this content. */
  text: (content: string): LlmReply => ({ status: 200, body: completion({ content }) }),
  /** The model calls `complete_task` (content null, as OpenAI models usually send with a tool call). */
  completeTask: (id: string, summary: string, content: string | null = null): LlmReply => ({
    status: 200,
    body: completion({
      content,
      tool_calls: [{ id, type: 'function', function: { name: 'complete_task', arguments: JSON.stringify({ summary }) } }],
    }),
  }),
  /** The model calls `hand_off` (and, when given, `complete_task` in the same message). */
  handOff: (id: string, reason: string, also: ToolCall[] = []): LlmReply => ({
    status: 200,
    body: completion({
      content: null,
      tool_calls: [...also, { id, type: 'function', function: { name: 'hand_off', arguments: JSON.stringify({ reason }) } }],
    }),
  }),
  /** The model calls these tools (an action's, say) by name with JSON arguments, in one message. */
  tools: (calls: { id: string; name: string; arguments: unknown }[], content: string | null = null): LlmReply => ({
    status: 200,
    body: completion({
      content,
      tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) } })),
    }),
  }),
  status: (status: number, body: unknown = { error: { message: `fake error ${status}` } }): LlmReply => ({ status, body }),
  json: (body: unknown): LlmReply => ({ status: 200, body }),
  /** Answers only after `delayMs` (the client may have given up by then). */
  late: (delayMs: number, next: LlmReply): LlmReply => ('status' in next ? { ...next, delayMs } : next),
  /** Answers only once `gate` resolves (the test decides when). */
  after: (gate: Promise<unknown>, next: LlmReply): LlmReply => ({ gate, next }),
  hang: (): LlmReply => ({ hang: true }),
};

export interface FakeLlm {
  /** `http://127.0.0.1:<port>`: the engine's baseUrl is this plus `/v1`. */
  url: string;
  port: number;
  requests: LlmRequest[];
  /** The requests to one path, e.g. `/v1/chat/completions`. */
  to(path: string): LlmRequest[];
  /** Answers the next requests to `path` in order; the last reply keeps answering the ones after. */
  script(path: string, ...replies: LlmReply[]): void;
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const requests: LlmRequest[] = [];
  const scripts = new Map<string, LlmReply[]>();
  const timers = new Set<NodeJS.Timeout>();

  function answer(res: ServerResponse, next: LlmReply): void {
    if ('hang' in next) return; // the connection stays open until the client gives up or the server closes
    if ('gate' in next) {
      void next.gate.then(() => answer(res, next.next));
      return;
    }
    const send = () => {
      if (res.destroyed || res.writableEnded) return;
      res.writeHead(next.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(next.body));
    };
    if (!next.delayMs) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, next.delayMs);
    timers.add(timer);
  }

  const server = createServer((req, res) => {
    res.on('error', () => {}); // a client that gave up is no failure of the fake
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = (req.url ?? '').split('?')[0] ?? '';
      let json: unknown;
      if (req.headers['content-type']?.startsWith('application/json')) {
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          json = undefined;
        }
      }
      requests.push({ method: req.method ?? '', path, headers: req.headers, raw, json, at: Date.now() });
      const queue = scripts.get(path) ?? [];
      const next = queue.length > 1 ? queue.shift() : queue[0];
      answer(res, next ?? reply.status(404, { error: { message: `no script for ${path}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    to: (path) => requests.filter((request) => request.path === path),
    script(path, ...replies) {
      scripts.set(path, [...replies]);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A multipart/form-data body as the fake received it, parsed the way a server would. */
export function formOf(request: LlmRequest): Promise<FormData> {
  return new Response(request.raw, { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
}
