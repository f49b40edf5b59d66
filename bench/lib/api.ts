// Setting up what a scenario measures through the server's own APIs (operator, console), as a user would.
import { randomBytes } from 'node:crypto';
import type { ParleyServer } from './processes.ts';

const PASSWORD = 'benchmark password';

async function call<T>(server: ParleyServer, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface BenchAccount {
  accountId: string;
  /** API key (all scopes), sent as is in `Authorization`. */
  key: string;
  /** A console token of the owner from `server` (another start of the server on the same data). */
  consoleToken(server: ParleyServer): Promise<string>;
  /** Console call: `/console/v1` + path, with the account owner's token. */
  console<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** A multipart console POST (`/console/v1` + path) with the owner's token. */
  upload<T>(path: string, form: FormData): Promise<T>;
}

/** A new account with an API key, logged in to the console of this server (a restarted server has another port). */
export async function createAccount(server: ParleyServer): Promise<BenchAccount> {
  const admin = { authorization: `Bearer ${server.adminToken}` };
  const email = `bench-${randomBytes(6).toString('hex')}@example.com`;
  const account = await call<{ id: string }>(server, 'POST', '/admin/v1/accounts', admin, { email, password: PASSWORD });
  const key = await call<{ key: string }>(server, 'POST', `/admin/v1/accounts/${account.id}/api-keys`, admin, {});
  const { token } = await call<{ token: string }>(server, 'POST', '/console/v1/auth/login', {}, { email, password: PASSWORD });
  return {
    accountId: account.id,
    key: key.key,
    consoleToken: async (other) => (await call<{ token: string }>(other, 'POST', '/console/v1/auth/login', {}, { email, password: PASSWORD })).token,
    console: (method, path, body) => call(server, method, `/console/v1${path}`, { authorization: `Bearer ${token}` }, body),
    async upload<T>(path: string, form: FormData): Promise<T> {
      const response = await fetch(`${server.url}/console/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      const text = await response.text();
      if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as T;
    },
  };
}

/** An API channel of the account; `agent: false` switches the agent off (each customer message is one event). */
export async function createApiChannel(
  account: BenchAccount,
  options: { name?: string; webhookUrl?: string; agent?: boolean; knowledgeBaseId?: string } = {},
): Promise<string> {
  const channel = await account.console<{ id: string }>('POST', '/channel/custom/connect/', {
    name: options.name ?? 'Benchmark',
    settings: { isActive: options.agent ?? false },
    ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
    ...(options.knowledgeBaseId ? { knowledgeBaseId: options.knowledgeBaseId } : {}),
  });
  return channel.id;
}

export function sendMessageBody(channelId: string, externalChatId: string, text: string, messageId?: string): string {
  return JSON.stringify({ channel: 'custom', channelId, externalChatId, role: 'user', text, ...(messageId ? { messageId } : {}) });
}
