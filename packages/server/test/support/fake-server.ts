// The common part of the messenger API fakes: a real local HTTP server on 127.0.0.1 that records every request
// (method, path, headers, body) and lets the fake answer it.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** The JSON body, when it was JSON. */
  json: Record<string, unknown> | undefined;
  at: number;
}

export type Answer = { status: number; json?: unknown; bytes?: Buffer; headers?: Record<string, string> };

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeServer(answer: (request: RecordedRequest) => Answer): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://fake');
      let json: Record<string, unknown> | undefined;
      try {
        json = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      const recorded = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, raw, json, at: Date.now() };
      requests.push(recorded);
      const reply = answer(recorded);
      const body = reply.bytes ?? Buffer.from(JSON.stringify(reply.json ?? {}));
      res.writeHead(reply.status, {
        'content-type': reply.bytes ? 'application/octet-stream' : 'application/json',
        ...reply.headers,
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
