// Pipedrive's base URL: the company's own (`https://{companyDomain}.pipedrive.com`) unless PIPEDRIVE_API_URL
// replaces it; the token travels in the `x-api-token` header, never in the URL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiAnswer } from '../../kernel/messenger-http.ts';
import type { CrmHttp } from './connector.ts';
import { createPipedriveConnector } from './pipedrive.ts';

function recordingHttp() {
  const calls: { url: string; headers: Record<string, string> | undefined }[] = [];
  const answers: Record<string, unknown> = {
    '/api/v1/users/me': { success: true, data: { company_name: 'Acme Ltd' } },
    '/api/v1/personFields': { success: true, data: [{ key: 'abc123', name: 'Parley chat key' }] },
  };
  const http: CrmHttp = {
    async call(url, options) {
      calls.push({ url, headers: options?.headers });
      const path = Object.keys(answers).find((p) => new URL(url).pathname.endsWith(p));
      const json = path === undefined ? undefined : answers[path];
      const answer: ApiAnswer = { status: json ? 200 : 404, json, retryAfterMs: undefined };
      return answer;
    },
  };
  return { http, calls };
}

test('the company domain names the base URL when PIPEDRIVE_API_URL is unset', async () => {
  const { http, calls } = recordingHttp();
  const account = await createPipedriveConnector({ http, apiUrl: undefined }).connect({ token: 'secret-token', companyDomain: 'acme' });
  assert.deepEqual(account, { name: 'Acme Ltd', settings: { chatKeyField: 'abc123' } });
  assert.deepEqual(
    calls.map((c) => c.url),
    ['https://acme.pipedrive.com/api/v1/users/me', 'https://acme.pipedrive.com/api/v1/personFields'],
  );
  assert.ok(calls.every((c) => c.headers?.['x-api-token'] === 'secret-token' && !c.url.includes('secret-token')));
});

test('PIPEDRIVE_API_URL replaces the base for every connection', async () => {
  const { http, calls } = recordingHttp();
  await createPipedriveConnector({ http, apiUrl: 'http://127.0.0.1:9999/proxy' }).connect({ token: 't0ken', companyDomain: 'acme' });
  assert.equal(calls[0]?.url, 'http://127.0.0.1:9999/proxy/api/v1/users/me');
});
