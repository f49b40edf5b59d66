#!/usr/bin/env node
// Checks of scripts/image-test.sh, in plain JavaScript (run by the host's node, outside the image):
//   image-smoke.mjs check-config CONFIG_JSON   the image's configuration against docs/operations.md, *Containers*
//   image-smoke.mjs smoke BASE_URL ADMIN_TOKEN  a running image: /healthz, /readyz, one message with a file
//                                               through the public API, read back from the event feed and /files/,
//                                               and a PDF document parsed in the image (PDF.js and its canvas)
// Exit 0 when every check passes; 1 with the failed check on stderr otherwise.
import assert from 'node:assert/strict';

const [command, ...args] = process.argv.slice(2);

function checkConfig(config) {
  assert.equal(config.User, 'node', 'runs as the user node');
  assert.equal(config.WorkingDir, '/app', 'WORKDIR /app');
  for (const pair of ['DATA_DIR=/data', 'HOST=0.0.0.0', 'PORT=3000']) assert.ok(config.Env.includes(pair), `ENV ${pair}`);
  assert.ok(config.Volumes && '/data' in config.Volumes, 'VOLUME /data');
  assert.ok(config.ExposedPorts && '3000/tcp' in config.ExposedPorts, 'EXPOSE 3000');
  assert.equal(config.Cmd[0], 'node', 'starts with plain node');
  assert.ok(config.Cmd.some((arg) => arg.endsWith('packages/server/dist/main.js')), 'starts the built server');
  assert.equal(config.Healthcheck?.Test?.[0], 'CMD', 'a HEALTHCHECK');
  assert.equal(config.Healthcheck.Test[1], 'node', 'the HEALTHCHECK runs node');
  assert.ok(config.Healthcheck.Test.join(' ').includes('/healthz'), 'the HEALTHCHECK asks /healthz');
  console.log('image configuration: user node, WORKDIR /app, DATA_DIR=/data HOST=0.0.0.0 PORT=3000, VOLUME /data, EXPOSE 3000, HEALTHCHECK with node');
}

/** A one-page PDF with one line of text, its cross-reference table computed. */
function onePagePdf(text) {
  const content = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = out.length;
    out += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

async function waitFor(what, check, seconds) {
  const until = Date.now() + seconds * 1000;
  let last;
  while (Date.now() < until) {
    try {
      const result = await check();
      if (result !== undefined) return result;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what}: not within ${seconds} s${last ? ` (${last.message})` : ''}`);
}

async function smoke(base, adminToken) {
  const call = async (method, path, { token, body, form } = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(token ? { authorization: token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: form ?? (body ? JSON.stringify(body) : undefined),
    });
    const text = await res.text();
    return { status: res.status, text, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  };
  // A first start unpacks the embedded database or migrates the server's: up to a minute on a loaded machine.
  const health = await waitFor('GET /healthz answers', async () => ((await call('GET', '/healthz')).status === 200 ? call('GET', '/healthz') : undefined), 120);
  assert.deepEqual(health.body, { status: 'ok' }, 'GET /healthz');
  const ready = await call('GET', '/readyz');
  assert.equal(ready.status, 200, `GET /readyz: ${ready.text}`);
  assert.deepEqual(ready.body, { status: 'ready' });
  console.log('GET /healthz 200 {"status":"ok"}, GET /readyz 200 {"status":"ready"}');

  const admin = `Bearer ${adminToken}`;
  const email = `image-test-${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const account = await call('POST', '/admin/v1/accounts', { token: admin, body: { email, password } });
  assert.equal(account.status, 201, `account: ${account.text}`);
  const key = await call('POST', `/admin/v1/accounts/${account.body.id}/api-keys`, { token: admin, body: {} });
  assert.equal(key.status, 201, `API key: ${key.text}`);
  const login = await call('POST', '/console/v1/auth/login', { body: { email, password } });
  assert.equal(login.status, 200, `login: ${login.text}`);
  const channel = await call('POST', '/console/v1/channel/custom/connect/', {
    token: `Bearer ${login.body.token}`,
    body: { name: 'Image test', disableAgentResponses: true },
  });
  assert.equal(channel.status, 201, `channel: ${channel.text}`);

  const form = new FormData();
  for (const [name, value] of Object.entries({ channel: 'custom', channelId: channel.body.id, externalChatId: 'image-1', role: 'user', text: 'Hello from the image test' })) {
    form.append(name, value);
  }
  const note = Buffer.from('a file kept in the image test\n');
  form.append('files', new Blob([note], { type: 'text/plain' }), 'note.txt');
  const sent = await call('POST', '/api/v1/chats/chat/send-message-universal', { token: key.body.key, form });
  assert.equal(sent.status, 201, `send-message-universal: ${sent.text}`);

  const event = await waitFor('the message in the event feed', async () => {
    const page = await call('GET', '/api/v1/events', { token: key.body.key });
    assert.equal(page.status, 200, page.text);
    return page.body.events.find((e) => e.payload.event === 'new_messages');
  }, 30);
  const message = event.payload.messages[0];
  assert.equal(message.text, 'Hello from the image test');
  assert.equal(message.attachments.length, 1);
  const file = await fetch(`${base}${new URL(message.attachments[0].url).pathname}`);
  assert.equal(file.status, 200, 'the attachment is served');
  assert.deepEqual(Buffer.from(await file.arrayBuffer()), note);
  console.log('one message with a file through the public API: 201, in the event feed, its file served back');

  const consoleAuth = `Bearer ${login.body.token}`;
  const kb = await call('POST', '/console/v1/knowledge-bases', { token: consoleAuth, body: { name: 'Image test' } });
  assert.equal(kb.status, 201, `knowledge base: ${kb.text}`);
  const upload = new FormData();
  upload.append('file', new Blob([onePagePdf('Returns are accepted within 30 days of delivery.')], { type: 'application/pdf' }), 'returns.pdf');
  const document = await call('POST', `/console/v1/knowledge-bases/${kb.body.id}/documents`, { token: consoleAuth, form: upload });
  assert.equal(document.status, 201, `document: ${document.text}`);
  const parsed = await waitFor('the PDF parsed', async () => {
    const list = await call('GET', `/console/v1/knowledge-bases/${kb.body.id}/documents`, { token: consoleAuth });
    const found = list.body.documents.find((d) => d.id === document.body.id);
    return found && found.status !== 'processing' ? found : undefined;
  }, 90);
  assert.equal(parsed.status, 'ready', `the PDF: ${JSON.stringify(parsed)}`);
  assert.equal(parsed.passages, 1);
  console.log('a PDF document parsed in the image: ready, 1 passage');
}

try {
  if (command === 'check-config') checkConfig(JSON.parse(args[0]));
  else if (command === 'smoke') await smoke(args[0], args[1]);
  else throw new Error('usage: image-smoke.mjs check-config CONFIG_JSON | smoke BASE_URL ADMIN_TOKEN');
} catch (error) {
  console.error(`image smoke check failed: ${error.message}`);
  process.exit(1);
}
