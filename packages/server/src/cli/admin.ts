// Operator CLI: `npm run -s admin -- <command> [options]`. Talks to the running server's operator API
// (so it also works while PGlite is owned by that server) and prints one JSON object on stdout.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `usage: npm run -s admin -- <command> [options]     (--help: this text)
  create-account   --email E [--password P]        (password read from stdin when omitted)
  create-key       --account ID [--scopes a,b,...]
  list-keys        --account ID
  deactivate-key   --key ID
  set-subscription --account ID --active true|false
  list-members     --account ID
  remove-member    --member ID                     (every session of theirs ends at once; not the owner)
options: --url URL (default PARLEY_URL or http://HOST:PORT), token from ADMIN_TOKEN or DATA_DIR/admin-token`;

function print(value: unknown, exitCode: number): never {
  process.stdout.write(`${JSON.stringify(value)}\n`);
  process.exit(exitCode);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function adminToken(): Promise<string> {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const dataDir = path.resolve(process.env.DATA_DIR ?? './data');
  try {
    return (await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
  } catch {
    return print({ error: `no ADMIN_TOKEN set and no ${dataDir}/admin-token found` }, 2);
  }
}

function baseUrl(flag: string | undefined): string {
  if (flag) return flag;
  if (process.env.PARLEY_URL) return process.env.PARLEY_URL;
  const host = process.env.HOST ?? '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${process.env.PORT ?? '3000'}`;
}

function required(value: string | undefined, name: string): string {
  if (!value) return print({ error: `--${name} is required`, usage: USAGE }, 2);
  return value;
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        account: { type: 'string' },
        key: { type: 'string' },
        member: { type: 'string' },
        scopes: { type: 'string' },
        active: { type: 'string' },
        url: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // An unknown option or a missing value: say which, with the usage, not a stack trace.
    return print({ error: (error as Error).message, usage: USAGE }, 2);
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parse();
  const [command] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  let request: { method: string; path: string; body?: unknown };
  switch (command) {
    case 'create-account':
      request = {
        method: 'POST',
        path: '/accounts',
        body: { email: required(values.email, 'email'), password: values.password ?? (await readStdin()) },
      };
      break;
    case 'create-key':
      request = {
        method: 'POST',
        path: `/accounts/${encodeURIComponent(required(values.account, 'account'))}/api-keys`,
        body: values.scopes ? { scopes: values.scopes.split(',').map((s) => s.trim()) } : {},
      };
      break;
    case 'list-keys':
      request = { method: 'GET', path: `/accounts/${encodeURIComponent(required(values.account, 'account'))}/api-keys` };
      break;
    case 'deactivate-key':
      request = { method: 'POST', path: `/api-keys/${encodeURIComponent(required(values.key, 'key'))}/deactivate` };
      break;
    case 'list-members':
      request = { method: 'GET', path: `/accounts/${encodeURIComponent(required(values.account, 'account'))}/members` };
      break;
    case 'remove-member':
      request = { method: 'DELETE', path: `/members/${encodeURIComponent(required(values.member, 'member'))}` };
      break;
    case 'set-subscription': {
      const active = required(values.active, 'active');
      if (active !== 'true' && active !== 'false') print({ error: '--active must be true or false' }, 2);
      request = {
        method: 'PUT',
        path: `/accounts/${encodeURIComponent(required(values.account, 'account'))}/subscription`,
        body: { active: active === 'true' },
      };
      break;
    }
    default:
      print({ error: command ? `unknown command ${command}` : 'no command given', usage: USAGE }, 2);
  }

  const token = await adminToken();
  let response: Response;
  try {
    response = await fetch(`${baseUrl(values.url)}/admin/v1${request.path}`, {
      method: request.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
  } catch (error) {
    return print({ error: `cannot reach the server: ${(error as Error).message}` }, 1);
  }
  const body: unknown = await response.json().catch(() => ({}));
  if (!response.ok) print({ error: body, status: response.status }, 1);
  print(body, 0);
}

void main();
