// Console login: JWT, bearer required on every other route, UserLang, throttling of failed logins.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const login = (email: string, password: string, lang?: string) =>
  t.console(undefined, 'POST', '/auth/login', { body: { email, password }, lang });

test('login with the right password: 200 { token } (a JWT); the token opens console routes', async () => {
  const { email } = await t.createAccount();
  const res = await login(email.toUpperCase(), PASSWORD);
  assert.equal(res.status, 200);
  const { token } = res.body as { token: string };
  assert.deepEqual(Object.keys(res.body as object), ['token']);
  assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, number>;
  assert.ok((claims.exp ?? 0) - (claims.iat ?? 0) <= 3600, 'short-lived');
  assert.equal((await t.console(token, 'GET', '/channels/all/')).status, 200);
});

test('bad credentials: 401, the same for an unknown e-mail; messages follow UserLang', async () => {
  const { email } = await t.createAccount();
  assert.deepEqual((await login(email, 'wrong password')).body, { message: 'Invalid e-mail or password', statusCode: 401 });
  assert.deepEqual((await login('nobody@example.com', 'wrong password')).body, {
    message: 'Invalid e-mail or password',
    statusCode: 401,
  });
  assert.deepEqual((await login(email, 'wrong password', 'ru')).body, {
    message: 'Неверный e-mail или пароль',
    statusCode: 401,
  });
  assert.deepEqual((await login(email, 'wrong password', 'xx')).body, {
    message: 'Invalid e-mail or password',
    statusCode: 401,
  });
});

test('every other route needs a valid bearer token', async () => {
  for (const authorization of [undefined, 'Bearer nope', 'Bearer a.b.c', 'Token abc']) {
    const res = await t.request('GET', '/console/v1/channels/all/', { headers: authorization ? { authorization } : {} });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { message: 'Unauthorized', statusCode: 401 });
  }
  const forged = await t.request('GET', '/console/v1/channels/all/', {
    headers: {
      authorization:
        'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4IiwiZW1haWwiOiJ4QHguaW8ifQ.c2lnbmF0dXJlLWJ5LWFub3RoZXIta2V5',
    },
  });
  assert.equal(forged.status, 401);
});

test('validation errors follow UserLang too', async () => {
  const res = await t.console(undefined, 'POST', '/auth/login', { body: { email: 'a@b.c' }, lang: 'ru' });
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { message: ['password обязательно'], statusCode: 400 });
  const extra = await t.console(undefined, 'POST', '/auth/login', { body: { email: 'a@b.c', password: 'x', remember: true } });
  assert.deepEqual(extra.body, { message: ['property remember should not exist'], statusCode: 400 });
});

test('10 failed logins in 15 minutes lock the e-mail: 429 even with the right password; others unaffected', async () => {
  const { email } = await t.createAccount();
  const other = await t.createAccount();
  for (let i = 0; i < 10; i += 1) assert.equal((await login(email, `wrong-${i}`)).status, 401);
  const locked = await login(email, PASSWORD);
  assert.equal(locked.status, 429);
  assert.deepEqual(locked.body, {
    message: 'Too many failed logins for this e-mail; try again in 15 min',
    statusCode: 429,
  });
  assert.equal((await login(email, PASSWORD, 'ru')).status, 429);
  assert.equal((await login(other.email, PASSWORD)).status, 200);
});

test('a successful login clears the failures', async () => {
  const { email } = await t.createAccount();
  for (let i = 0; i < 9; i += 1) assert.equal((await login(email, 'wrong')).status, 401);
  assert.equal((await login(email, PASSWORD)).status, 200);
  for (let i = 0; i < 9; i += 1) assert.equal((await login(email, 'wrong')).status, 401);
  assert.equal((await login(email, PASSWORD)).status, 200);
});
