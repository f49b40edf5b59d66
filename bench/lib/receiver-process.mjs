// The customer's webhook receiver for benchmarks, in a process of its own so that its work is not the load
// generator's. `node receiver-process.mjs count|record SLOW_MS`: answers 200 at once, or after SLOW_MS on paths
// starting /slow; counts per path; in `record` mode keeps a short summary of every event for the parent.
import { createServer } from 'node:http';

const [mode, slowMs] = process.argv.slice(2);
const record = mode === 'record';
let stats = {};
let events = [];
const now = () => performance.timeOrigin + performance.now();

function summarize(at, body) {
  try {
    const payload = JSON.parse(body);
    const messages = payload.messages ?? (payload.message ? [payload.message] : []);
    events.push({
      at,
      event: payload.event,
      externalChatId: payload.chat?.externalChatId,
      roles: messages.map((m) => m.role),
      texts: messages.map((m) => m.text),
      messageIds: messages.map((m) => m.id),
      eventId: payload.eventId,
    });
  } catch {
    events.push({ at, event: 'unparsable', externalChatId: undefined, roles: [], texts: [], messageIds: [], eventId: undefined });
  }
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    const path = req.url ?? '/';
    const entry = (stats[path] ??= { count: 0, firstAt: at, lastAt: at });
    entry.count += 1;
    entry.lastAt = at;
    if (record) summarize(at, Buffer.concat(chunks).toString('utf8'));
    if (path.startsWith('/slow')) setTimeout(() => res.end('ok'), Number(slowMs));
    else res.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));

process.on('message', (message) => {
  if (message.type === 'stats') process.send({ type: 'stats', stats });
  else if (message.type === 'drain') {
    process.send({ type: 'events', events });
    events = [];
  } else if (message.type === 'reset') {
    stats = {};
    events = [];
    process.send({ type: 'reset' });
  }
});
process.on('SIGTERM', () => process.exit(0));
