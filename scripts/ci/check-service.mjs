#!/usr/bin/env node
// `check-service.mjs postgres|redis URL`: exit 0 when the service answers within 3 s, 1 otherwise.
import { Redis } from 'ioredis';
import pg from 'pg';

const [kind, url] = process.argv.slice(2);
const timer = setTimeout(() => process.exit(1), 3000);

async function check() {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2500 });
    await client.connect();
    await client.query('select 1');
    await client.end();
  } else if (kind === 'redis') {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    await redis.connect();
    await redis.ping();
    redis.disconnect();
  } else {
    throw new Error(`unknown service ${kind}`);
  }
}

check().then(
  () => {
    clearTimeout(timer);
    process.exit(0);
  },
  () => process.exit(1),
);
