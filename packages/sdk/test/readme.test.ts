// The SDK README's integration, run as written (its `js integration` block) against a started server: it catches
// up on the feed at start, then receives a signed delivery, logs it and tags a chat asking for a human.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { eventually } from '../../server/test/support/events.ts';
import { freePort, startTestApp, type TestApp } from '../../server/test/support/harness.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

let t: TestApp;
before(async () => {
  t = await startTestApp({ webhookAllowPrivateNetworks: true });
});
after(async () => {
  await t.close();
});

test('the README integration runs as written', async () => {
  const readme = await readFile(path.join(here, '..', 'README.md'), 'utf8');
  const block = /^```js integration\n([\s\S]*?)^```$/m.exec(readme)?.[1];
  assert.ok(block, 'README.md has a js integration block');
  assert.ok(block.split('\n').filter(Boolean).length <= 20, 'at most 20 lines');

  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const port = await freePort();
  const user = await t.createConsoleUser();
  const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Readme shop', disableAgentResponses: true, webhookUrl: `http://127.0.0.1:${port}/`, webhookSecret: secret },
  });
  assert.equal(channel.status, 201, channel.text);
  const send = async (externalChatId: string, text: string, senderName: string) => {
    const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId: channel.body.id, externalChatId, role: 'user', text, senderName },
    });
    assert.equal(res.status, 201, res.text);
  };
  // Sent while the receiver is down (its delivery fails): the integration finds it in the feed at start.
  await send('early', 'I was here before you started', 'Early Bird');

  // Inside the package, so that `@parley/sdk` resolves as for a user; the cursor file goes to a temporary folder.
  const script = path.join(here, `.readme-integration-${process.pid}.mjs`);
  const cwd = await mkdtemp(path.join(os.tmpdir(), 'parley-sdk-readme-'));
  await writeFile(script, block);
  let output = '';
  const child = spawn(process.execPath, [script], {
    cwd,
    env: { ...process.env, PARLEY_URL: t.url, PARLEY_API_KEY: user.key, PARLEY_WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await eventually(async () => output.includes('listening'), 20_000);
    assert.match(output, /Early Bird \(user\): I was here before you started/);
    assert.ok((await readFile(path.join(cwd, 'parley-cursor'), 'utf8')).length > 0);

    await send('live', 'Can I talk to a human?', 'Live Visitor');
    await eventually(async () => output.includes('Live Visitor (user): Can I talk to a human?'), 20_000);
    const tagged = await eventually(async () => {
      const list = await t.api<{ chats: { chatId: string }[] }>(user.key, '/chats/chat', { tag: 'needs-human' });
      return list.body.chats.length === 1 && list.body.chats;
    });
    assert.equal(tagged[0]?.chatId, 'live');
    assert.doesNotMatch(output, /Error/);
  } finally {
    child.kill('SIGTERM');
    await rm(script, { force: true });
    await rm(cwd, { recursive: true, force: true });
  }
});
