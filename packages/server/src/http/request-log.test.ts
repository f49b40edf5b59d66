import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from '../logger.ts';
import { createHttpServer } from './server.ts';

test("a request's lines carry its id: the access line always, its own lines when it writes any", async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = createHttpServer(createLogger('info', sink));
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/talks', async (request) => {
    request.log.warn({ options: { token: 'secret-token' }, step: 1 }, 'something to note');
    request.log.child({ part: 'inner' }).info('from a child');
    return { level: request.log.level };
  });
  try {
    const quiet = await app.inject({ method: 'GET', url: '/quiet', headers: { 'x-request-id': 'quiet-1' } });
    assert.equal(quiet.statusCode, 200);
    const talks = await app.inject({ method: 'GET', url: '/talks?x=1', headers: { 'x-request-id': 'talks-1' } });
    assert.deepEqual(talks.json(), { level: 'info' });
  } finally {
    await app.close();
  }
  const strip = ({ time: _time, pid: _pid, hostname: _hostname, responseTime: _responseTime, ...rest }: Record<string, unknown>) => rest;
  assert.deepEqual(lines.map(strip), [
    { level: 30, reqId: 'quiet-1', method: 'GET', url: '/quiet', ip: '127.0.0.1', statusCode: 200, msg: 'request' },
    { level: 40, reqId: 'talks-1', options: { token: '[redacted]' }, step: 1, msg: 'something to note' },
    { level: 30, reqId: 'talks-1', part: 'inner', msg: 'from a child' },
    { level: 30, reqId: 'talks-1', method: 'GET', url: '/talks?x=1', ip: '127.0.0.1', statusCode: 200, msg: 'request' },
  ]);
  // The access line keeps the shape operators read (docs/operations.md): the request id right after the bindings.
  assert.deepEqual(Object.keys(lines[0] ?? {}), ['level', 'time', 'pid', 'hostname', 'reqId', 'method', 'url', 'ip', 'statusCode', 'responseTime', 'msg']);
});
