// A website of a customer of Parley for the widget's browser tests: another site than the app's, not only another
// origin.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const HOST_SITE_ADDRESS = '127.0.0.2';

export interface HostSite {
  origin: string;
  /** Serves `html` at `/` from now on. */
  page(html: string): void;
  close(): Promise<void>;
}

/**
 * A website of a customer of Parley: a local HTTP server on 127.0.0.2 (Linux routes all of 127.0.0.0/8 to
 * loopback), so another site than the app's 127.0.0.1 and not only another origin. Every path serves the page.
 */
export async function startHostSite(): Promise<HostSite> {
  let html = '<!doctype html><title>Shop</title><p>Shop</p>';
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, HOST_SITE_ADDRESS, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${HOST_SITE_ADDRESS}:${port}`,
    page(next) {
      html = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const shopPage = (snippet: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>${head}</head><body><h1>Shop</h1>${snippet}</body></html>`;
