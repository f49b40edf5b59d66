// A shop's own API for agent actions (issue #43): a real local HTTP server that records every request and answers
// like a small order system — orders by number (all, or only a customer's own), cancelling one — plus the ways a shop
// can go wrong (slow, 500, too large, not JSON, a redirect) and an echo of what arrived (to see a request's shape).
// Changing an order's delivery address too (the eval's second write).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ShopRequest {
  method: string;
  /** The path as it arrived, percent-encoding untouched. */
  rawPath: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Order {
  id: string;
  customer: string;
  status: string;
  eta: string;
  items: { name: string; qty: number }[];
  address?: string;
}

export interface FakeShop {
  url: string;
  requests: ShopRequest[];
  orders: Map<string, Order>;
  /** The requests whose path starts with `prefix`. */
  to(prefix: string): ShopRequest[];
  close(): Promise<void>;
}

export const ORDERS: Order[] = [
  { id: '10482', customer: 'cust-ada', status: 'shipped', eta: '2026-12-01', items: [{ name: 'Blue scarf', qty: 1 }, { name: 'Wool hat', qty: 2 }] },
  { id: '10483', customer: 'cust-bob', status: 'processing', eta: '2026-12-05', items: [{ name: 'Red mittens', qty: 1 }] },
  { id: '20001', customer: 'cust-ada', status: 'delivered', eta: '2026-11-20', items: [{ name: 'Green socks', qty: 3 }] },
];

export async function startFakeShop(options: { slowMs?: number } = {}): Promise<FakeShop> {
  const requests: ShopRequest[] = [];
  const orders = new Map(ORDERS.map((order) => [order.id, structuredClone(order)]));
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    res.on('error', () => {});
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawPath = (req.url ?? '/').split('?')[0] ?? '/';
      const query = new URL(req.url ?? '/', 'http://shop').searchParams;
      const body = Buffer.concat(chunks).toString('utf8');
      const request: ShopRequest = { method: req.method ?? '', rawPath, query, headers: req.headers, body };
      requests.push(request);
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const segments = rawPath.split('/').slice(1);
      // /api/orders/{number}
      if (req.method === 'GET' && segments[0] === 'api' && segments[1] === 'orders' && segments.length === 3) {
        const order = orders.get(decodeURIComponent(segments[2] ?? ''));
        return order ? json(200, order) : json(404, { error: 'order not found' });
      }
      // /api/customers/{customer}/orders/{number}: only the customer's own order.
      if (req.method === 'GET' && segments[0] === 'api' && segments[1] === 'customers' && segments[3] === 'orders' && segments.length === 5) {
        const order = orders.get(decodeURIComponent(segments[4] ?? ''));
        return order && order.customer === decodeURIComponent(segments[2] ?? '') ? json(200, order) : json(404, { error: 'order not found' });
      }
      // POST /api/customers/{customer}/orders/{number}/cancel
      if (req.method === 'POST' && segments[0] === 'api' && segments[1] === 'customers' && segments[3] === 'orders' && segments[5] === 'cancel') {
        const order = orders.get(decodeURIComponent(segments[4] ?? ''));
        if (!order || order.customer !== decodeURIComponent(segments[2] ?? '')) return json(404, { error: 'order not found' });
        order.status = 'cancelled';
        return json(200, order);
      }
      // POST /api/customers/{customer}/orders/{number}/address { address }
      if (req.method === 'POST' && segments[0] === 'api' && segments[1] === 'customers' && segments[3] === 'orders' && segments[5] === 'address') {
        const order = orders.get(decodeURIComponent(segments[4] ?? ''));
        if (!order || order.customer !== decodeURIComponent(segments[2] ?? '')) return json(404, { error: 'order not found' });
        let address: unknown;
        try {
          address = (JSON.parse(body) as { address?: unknown }).address;
        } catch {
          address = undefined;
        }
        if (typeof address !== 'string' || address.trim() === '') return json(400, { error: 'address required' });
        order.address = address;
        return json(200, order);
      }
      switch (segments[0]) {
        case 'echo':
          return json(200, { method: req.method, rawPath, query: [...query.entries()], headers: req.headers, body });
        case 'slow': {
          const timer = setTimeout(() => {
            timers.delete(timer);
            json(200, { late: true });
          }, options.slowMs ?? 3_000);
          timers.add(timer);
          return;
        }
        case 'error':
          return json(500, { error: 'database down', echo: req.headers.authorization ?? null });
        case 'big':
          return json(200, { blob: 'x'.repeat(300 * 1024) });
        case 'html':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end('<html><body>Shop</body></html>');
        case 'redirect':
          res.writeHead(302, { location: '/echo/redirected' });
          return res.end();
        case 'empty':
          res.writeHead(204);
          return res.end();
        default:
          return json(404, { error: 'no such route' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    orders,
    to: (prefix) => requests.filter((request) => request.rawPath.startsWith(prefix)),
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
