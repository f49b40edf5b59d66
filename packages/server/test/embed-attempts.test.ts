// Refused embed attempts of the chat widget (issue #34, item 1), over HTTP against a real database: the loader's
// check (`GET /widget/v1/embed`) answers whether a page may show the widget and records a refused origin; the
// console lists those origins (newest first, an origin allowed since left out, at most 50 a channel), readable by
// an agent, and another account's channel is 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from './support/harness.ts';

const SITE = 'https://shop.example';
const OTHER = 'https://other.example';

interface EmbedAttempt {
  origin: string;
  attempts: number;
  firstAt: string;
  lastAt: string;
}

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function widgetChannel(token: string, allowedOrigins: string[] = []): Promise<string> {
  const res = await t.console<{ id: string }>(token, 'POST', '/channel/widget/connect/', { body: { name: 'Site chat', widget: { allowedOrigins } } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

const check = (channel: string, origin?: string, query: Record<string, string> = {}) =>
  t.request<{ allowed: boolean; origin?: string; message?: string }>('GET', '/widget/v1/embed', {
    query: { channel, ...query },
    headers: origin === undefined ? {} : { origin },
  });

const attemptsOf = (token: string, channelId: string) =>
  t.console<{ embedAttempts: EmbedAttempt[] }>(token, 'GET', `/channel/widget/${channelId}/embed-attempts/`);

describe('refused embed attempts', () => {
  test('a refused page is told why and counted; an allowed one is not; the console lists what is still refused', async () => {
    const owner = await t.createConsoleUser();
    const channelId = await widgetChannel(owner.token);
    const refused = await check(channelId, `${SITE}/`);
    assert.equal(refused.status, 200, refused.text);
    assert.deepEqual(refused.body, { allowed: false, origin: SITE, message: 'This website is not allowed to show this chat' });
    assert.equal(refused.headers.get('access-control-allow-origin'), '*');
    assert.equal((await check(channelId, SITE)).body.allowed, false);
    // No Origin header (a same-origin page): the loader's `origin` parameter is judged.
    assert.equal((await check(channelId, undefined, { origin: OTHER })).body.allowed, false);

    const listed = await attemptsOf(owner.token, channelId);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.embedAttempts.map((a) => [a.origin, a.attempts]).sort(),
      [
        [OTHER, 1],
        [SITE, 2],
      ],
    );
    const site = listed.body.embedAttempts.find((a) => a.origin === SITE);
    assert.ok(site && site.firstAt <= site.lastAt && /Z$/.test(site.lastAt));

    // Allow SITE (what the channel page's `Allow https://shop.example` does): it may show, and leaves the list.
    const allowed = await t.console(owner.token, 'PUT', `/channel/widget/${channelId}/`, { body: { widget: { allowedOrigins: [SITE] } } });
    assert.equal(allowed.status, 200, allowed.text);
    assert.deepEqual((await check(channelId, SITE)).body, { allowed: true });
    assert.deepEqual((await attemptsOf(owner.token, channelId)).body.embedAttempts.map((a) => a.origin), [OTHER]);
  });

  test('unknown channel: 404; another account, an API channel or a bad id: 404 Channel not found', async () => {
    const owner = await t.createConsoleUser();
    const other = await t.createConsoleUser();
    const channelId = await widgetChannel(owner.token);
    const missing = await check('no-such-channel', SITE);
    assert.deepEqual([missing.status, missing.body], [404, { message: 'Channel not found', statusCode: 404 }]);
    const notFound = { message: 'Channel not found', statusCode: 404 };
    const theirs = await attemptsOf(other.token, channelId);
    assert.deepEqual([theirs.status, theirs.body], [404, notFound]);
    const api = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'API' } });
    const notWidget = await attemptsOf(owner.token, api.body.id);
    assert.deepEqual([notWidget.status, notWidget.body], [404, notFound]);
    assert.equal((await t.console(undefined, 'GET', `/channel/widget/${channelId}/embed-attempts/`)).status, 401);
  });

  test('at most 50 origins are kept a channel; those kept still count', async () => {
    const owner = await t.createConsoleUser();
    const channelId = await widgetChannel(owner.token, [SITE]);
    for (let i = 0; i < 52; i += 1) assert.equal((await check(channelId, `https://site-${i}.example`)).body.allowed, false);
    assert.equal((await check(channelId, 'https://site-0.example')).body.allowed, false);
    const listed = (await attemptsOf(owner.token, channelId)).body.embedAttempts;
    assert.equal(listed.length, 50);
    assert.equal(listed.find((a) => a.origin === 'https://site-0.example')?.attempts, 2);
    assert.equal(listed.some((a) => a.origin === 'https://site-51.example'), false);
  });
});
