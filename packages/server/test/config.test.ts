// Configuration from the environment (docs/architecture.md, Operational contract).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults', () => {
  assert.deepEqual(loadConfig({}, '/srv/parley'), {
    port: 3000,
    host: '127.0.0.1',
    dataDir: path.resolve('/srv/parley/data'),
    databaseUrl: undefined,
    databaseTimeouts: { connectMs: 5_000, statementMs: 15_000, idleInTransactionMs: 60_000 },
    redisUrl: undefined,
    adminToken: undefined,
    publicUrl: 'http://127.0.0.1:3000',
    webhookAllowPrivateNetworks: false,
    jwtSecret: undefined,
    secretsKey: undefined,
    rateLimitMax: 300,
    deliveryRetentionDays: 7,
    auditRetentionDays: 365,
    logLevel: 'info',
    messengerApis: { telegram: 'https://api.telegram.org', meta: 'https://graph.facebook.com', viber: 'https://chatapi.viber.com' },
    crmApis: { hubspot: 'https://api.hubapi.com', pipedrive: undefined },
    countStatementsFile: undefined,
    pgliteSharedBuffers: '16MB',
    knowledgeEncoder: true,
    trustProxy: undefined,
    metricsToken: undefined,
    metricsPort: undefined,
    shutdownGraceSeconds: 20,
    smtpUrl: undefined,
    smtpFrom: 'Parley <no-reply@localhost>',
    alertEmailDelaySeconds: 60,
    s3: undefined,
  });
});

test('every variable is read', () => {
  const config = loadConfig(
    {
      PORT: '8080',
      HOST: '::1',
      DATA_DIR: '/var/lib/parley',
      DATABASE_URL: 'postgres://u:p@db:5432/parley',
      REDIS_URL: 'redis://cache:6379',
      ADMIN_TOKEN: 'a'.repeat(32),
      PUBLIC_URL: 'https://chat.example.com/',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      JWT_SECRET: 'j'.repeat(32),
      SECRETS_KEY: 's'.repeat(32),
      RATE_LIMIT_MAX: '100000',
      LOG_LEVEL: 'warn',
      TELEGRAM_API_URL: 'http://127.0.0.1:8081/',
      META_GRAPH_URL: 'https://graph.example.com',
      VIBER_API_URL: 'https://viber.example.com/base',
      HUBSPOT_API_URL: 'http://127.0.0.1:8082/',
      PIPEDRIVE_API_URL: 'https://pipedrive.example.com',
      PARLEY_COUNT_STATEMENTS: 'bench/statements.json',
      KB_ENCODER: 'off',
      PGLITE_SHARED_BUFFERS: '256MB',
      TRUST_PROXY: '10.0.0.5, 192.168.0.0/16,::1,fd00::/8,loopback',
      METRICS_TOKEN: 'm'.repeat(32),
      METRICS_PORT: '9464',
      SHUTDOWN_GRACE_SECONDS: '45',
      SMTP_URL: 'smtp://mailer:pass@mail.example.com:587',
      SMTP_FROM: 'Support <support@example.com>',
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
      DATABASE_STATEMENT_TIMEOUT_MS: '60000',
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '120000',
      S3_BUCKET: 'parley-files',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_REGION: 'eu-central-1',
      S3_ACCESS_KEY_ID: 'parley',
      S3_SECRET_ACCESS_KEY: 'hunter2-secret',
      S3_FORCE_PATH_STYLE: 'true',
      AUDIT_RETENTION_DAYS: '730',
    },
    '/',
  );
  assert.equal(config.auditRetentionDays, 730);
  assert.deepEqual(config.s3, {
    bucket: 'parley-files',
    endpoint: 'http://minio:9000',
    region: 'eu-central-1',
    accessKeyId: 'parley',
    secretAccessKey: 'hunter2-secret',
    forcePathStyle: true,
  });
  // The bucket alone: AWS's endpoint for us-east-1, the SDK's own credentials (AWS_* variables, roles).
  assert.deepEqual(loadConfig({ S3_BUCKET: 'files.example.com' }).s3, {
    bucket: 'files.example.com',
    endpoint: undefined,
    region: 'us-east-1',
    accessKeyId: undefined,
    secretAccessKey: undefined,
    forcePathStyle: false,
  });
  assert.deepEqual(config.databaseTimeouts, { connectMs: 2_000, statementMs: 60_000, idleInTransactionMs: 120_000 });
  assert.throws(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '5s' }), {
    message: 'Invalid configuration: DATABASE_STATEMENT_TIMEOUT_MS must be an integer from 100 to 3600000 (got "5s")',
  });
  assert.deepEqual(config.trustProxy, ['10.0.0.5', '192.168.0.0/16', '::1', 'fd00::/8', 'loopback']);
  assert.deepEqual(config.messengerApis, {
    telegram: 'http://127.0.0.1:8081',
    meta: 'https://graph.example.com',
    viber: 'https://viber.example.com/base',
  });
  assert.deepEqual(config.crmApis, { hubspot: 'http://127.0.0.1:8082', pipedrive: 'https://pipedrive.example.com' });
  assert.equal(config.port, 8080);
  assert.equal(config.dataDir, '/var/lib/parley');
  assert.equal(config.publicUrl, 'https://chat.example.com');
  assert.equal(config.webhookAllowPrivateNetworks, true);
  assert.equal(config.rateLimitMax, 100000);
  assert.equal(config.secretsKey, 's'.repeat(32));
  assert.equal(config.logLevel, 'warn');
  assert.equal(config.countStatementsFile, '/bench/statements.json');
  assert.equal(config.knowledgeEncoder, false);
  assert.equal(config.pgliteSharedBuffers, '256MB');
  assert.equal(config.metricsToken, 'm'.repeat(32));
  assert.equal(config.metricsPort, 9464);
  assert.equal(config.shutdownGraceSeconds, 45);
  assert.equal(config.smtpUrl, 'smtp://mailer:pass@mail.example.com:587');
  assert.equal(config.smtpFrom, 'Support <support@example.com>');
  assert.equal(loadConfig({ PUBLIC_URL: 'https://chat.example.com' }).smtpFrom, 'Parley <no-reply@chat.example.com>');
  assert.equal(loadConfig({ SMTP_FROM: 'team@example.com' }).smtpFrom, 'team@example.com');
  assert.equal(loadConfig({ HOST: '::1' }).publicUrl, 'http://[::1]:3000');
});

test('a bad value is one clear line naming the variable, and never echoes a secret', () => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'abc' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "70000")'],
    [{ DELIVERY_RETENTION_DAYS: '0' }, 'Invalid configuration: DELIVERY_RETENTION_DAYS must be an integer from 1 to 3650 (got "0")'],
    [{ AUDIT_RETENTION_DAYS: '0' }, 'Invalid configuration: AUDIT_RETENTION_DAYS must be an integer from 1 to 36500 (got "0")'],
    [{ RATE_LIMIT_MAX: '0' }, 'Invalid configuration: RATE_LIMIT_MAX must be an integer from 1 to 1000000000 (got "0")'],
    [{ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes' }, 'Invalid configuration: WEBHOOK_ALLOW_PRIVATE_NETWORKS must be "true" or "false" (got "yes")'],
    [{ KB_ENCODER: 'yes' }, 'Invalid configuration: KB_ENCODER must be on or off (got "yes")'],
    [{ PGLITE_SHARED_BUFFERS: '16' }, 'Invalid configuration: PGLITE_SHARED_BUFFERS must be a size like 16MB or 1GB, from 1MB to 1GB (got "16")'],
    [{ PGLITE_SHARED_BUFFERS: '2GB' }, 'Invalid configuration: PGLITE_SHARED_BUFFERS must be a size like 16MB or 1GB, from 1MB to 1GB (got "2GB")'],
    [{ LOG_LEVEL: 'loud' }, 'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [{ PUBLIC_URL: 'ftp://x' }, 'Invalid configuration: PUBLIC_URL must be a URL starting with http:// or https:// (got "ftp://x")'],
    [{ DATABASE_URL: 'mysql://root:hunter2@db/x' }, 'Invalid configuration: DATABASE_URL must be a URL starting with postgres:// or postgresql://'],
    [{ TELEGRAM_API_URL: 'api.telegram.org' }, 'Invalid configuration: TELEGRAM_API_URL must be a URL starting with http:// or https:// (got "api.telegram.org")'],
    [{ META_GRAPH_URL: 'https://graph.example.com/?x=1' }, 'Invalid configuration: META_GRAPH_URL must be a base URL without credentials, query or fragment (got "https://graph.example.com/?x=1")'],
    [{ REDIS_URL: 'memcached://x' }, 'Invalid configuration: REDIS_URL must be a URL starting with redis:// or rediss://'],
    [{ ADMIN_TOKEN: 'short-secret' }, 'Invalid configuration: ADMIN_TOKEN must be at least 32 characters long'],
    [{ JWT_SECRET: 'short-secret' }, 'Invalid configuration: JWT_SECRET must be at least 32 characters long'],
    [{ SECRETS_KEY: 'short-key' }, 'Invalid configuration: SECRETS_KEY must be at least 32 characters long'],
    [{ TRUST_PROXY: '10.0.0.1,proxy.local' }, 'Invalid configuration: TRUST_PROXY must list IP addresses or CIDRs (or loopback, linklocal, uniquelocal) separated by commas (got "proxy.local")'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'Invalid configuration: TRUST_PROXY must list IP addresses or CIDRs (or loopback, linklocal, uniquelocal) separated by commas (got "10.0.0.0/33")'],
    [{ SMTP_URL: 'http://mailer:hunter2@mail.example.com' }, 'Invalid configuration: SMTP_URL must be a URL starting with smtp:// or smtps://'],
    [{ SMTP_FROM: 'Support <support>' }, 'Invalid configuration: SMTP_FROM must be an e-mail address, or "Name <address>" (got "Support <support>")'],
    [{ TRUST_PROXY: 'true' }, 'Invalid configuration: TRUST_PROXY must list IP addresses or CIDRs (or loopback, linklocal, uniquelocal) separated by commas (got "true")'],
    [{ METRICS_TOKEN: 'short-secret' }, 'Invalid configuration: METRICS_TOKEN must be at least 32 characters long'],
    [{ METRICS_TOKEN: 'short-secret with a space and long enough' }, 'Invalid configuration: METRICS_TOKEN must be printable ASCII characters without spaces'],
    [{ METRICS_TOKEN: 'short-secret-but-long-enough-with-é' }, 'Invalid configuration: METRICS_TOKEN must be printable ASCII characters without spaces'],
    [{ METRICS_PORT: '0' }, 'Invalid configuration: METRICS_PORT must be an integer from 1 to 65535 (got "0")'],
    [{ METRICS_PORT: 'x9464' }, 'Invalid configuration: METRICS_PORT must be an integer from 1 to 65535 (got "x9464")'],
    [{ SHUTDOWN_GRACE_SECONDS: '0' }, 'Invalid configuration: SHUTDOWN_GRACE_SECONDS must be an integer from 1 to 3600 (got "0")'],
    [{ SHUTDOWN_GRACE_SECONDS: '2.5' }, 'Invalid configuration: SHUTDOWN_GRACE_SECONDS must be an integer from 1 to 3600 (got "2.5")'],
    [{ METRICS_PORT: '3000' }, 'Invalid configuration: METRICS_PORT must differ from PORT (both 3000)'],
    [{ S3_ENDPOINT: 'http://minio:9000' }, 'Invalid configuration: S3_BUCKET must be set when S3_ENDPOINT is (files are in DATA_DIR/files without it)'],
    [{ S3_SECRET_ACCESS_KEY: 'hunter2' }, 'Invalid configuration: S3_BUCKET must be set when S3_SECRET_ACCESS_KEY is (files are in DATA_DIR/files without it)'],
    [{ S3_BUCKET: 'Parley_Files' }, 'Invalid configuration: S3_BUCKET must be a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens (got "Parley_Files")'],
    [{ S3_BUCKET: 'parley', S3_REGION: 'EU West' }, 'Invalid configuration: S3_REGION must be a region name like us-east-1 (got "EU West")'],
    [{ S3_BUCKET: 'parley', S3_SECRET_ACCESS_KEY: 'hunter2' }, 'Invalid configuration: S3_ACCESS_KEY_ID must be set together with the other S3 key variable'],
    [{ S3_BUCKET: 'parley', S3_ACCESS_KEY_ID: 'parley' }, 'Invalid configuration: S3_SECRET_ACCESS_KEY must be set together with the other S3 key variable'],
    [{ S3_BUCKET: 'parley', S3_ENDPOINT: 'minio:9000' }, 'Invalid configuration: S3_ENDPOINT must be a URL starting with http:// or https://'],
    [{ S3_BUCKET: 'parley', S3_ENDPOINT: 'http://parley:hunter2@minio:9000' }, 'Invalid configuration: S3_ENDPOINT must be a base URL without credentials, query or fragment (the keys go in S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)'],
    [{ S3_BUCKET: 'parley', S3_FORCE_PATH_STYLE: 'yes' }, 'Invalid configuration: S3_FORCE_PATH_STYLE must be "true" or "false" (got "yes")'],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => loadConfig(env), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.message, message);
      assert.ok(!error.message.includes('\n'));
      assert.ok(!error.message.includes('hunter2') && !error.message.includes('short-secret'));
      return true;
    });
  }
});

test('HOST is an IP address or a host name', () => {
  for (const good of ['0.0.0.0', '127.0.0.1', '::', '::1', 'localhost', 'parley.internal', 'api-1.example.com']) {
    assert.equal(loadConfig({ HOST: good }).host, good);
  }
  for (const bad of ['999.1.1.1', '1.2.3', 'a b', 'host_name', '-x', 'http://x', 'x'.repeat(64)]) {
    assert.throws(() => loadConfig({ HOST: bad }), (error: unknown) => error instanceof ConfigError && error.variable === 'HOST', bad);
  }
});
