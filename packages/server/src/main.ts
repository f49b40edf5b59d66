// Process entry: reads the environment once, checks the address can be listened on, opens the database,
// builds the app, listens, and stops cleanly on SIGTERM (finish in-flight requests, close the database, exit 0).
import { createServer } from 'node:net';
import { pino } from 'pino';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase, pgliteDir } from './db/client.ts';
import { createStatementCounter, reportStatementsOnSignal } from './db/statement-counter.ts';
import { DataDirLockedError, lockDataDir } from './db/data-dir-lock.ts';
import { loadOrCreateSecret } from './lib/secrets.ts';
import { createLogger } from './logger.ts';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/**
 * Binds HOST:PORT (and HOST:METRICS_PORT) once and lets go, before anything is written to DATA_DIR: a port in use
 * or an address not of this machine stops the start with one line naming the variable, and no data folder or
 * operator token is made for a server that never runs. (Another process may still take the port in between;
 * listen then fails.)
 */
async function checkListenAddress(host: string, port: number, variable = 'PORT'): Promise<void> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, () => resolve());
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reasons: Record<string, string> = {
      EADDRINUSE: `${variable} ${port} is in use on ${host} (another process listens there); stop it or set another ${variable}`,
      EACCES: `${variable} ${port} on ${host} needs privileges this process lacks; set another ${variable}`,
      EADDRNOTAVAIL: `HOST ${host} is not an address of this machine`,
      ENOTFOUND: `HOST ${host} does not resolve to an address`,
      EAI_AGAIN: `HOST ${host} does not resolve to an address`,
    };
    fail(`Cannot start: ${(code && reasons[code]) ?? `cannot listen on HOST ${host} ${variable} ${port}: ${message}`}`);
  } finally {
    await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  }
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  // Written asynchronously (a log line never blocks a request); flushed before the process exits.
  const logDestination = pino.destination({ dest: 1, sync: false });
  const logger = createLogger(config.logLevel, logDestination);
  await checkListenAddress(config.host, config.port);
  if (config.metricsPort !== undefined) await checkListenAddress(config.host, config.metricsPort, 'METRICS_PORT');

  let releaseDataDir = () => {};
  if (!config.databaseUrl) {
    try {
      releaseDataDir = lockDataDir(config.dataDir);
    } catch (error) {
      if (error instanceof DataDirLockedError) fail(error.message);
      throw error;
    }
  }

  let adminToken = config.adminToken;
  if (!adminToken) {
    const secret = await loadOrCreateSecret(config.dataDir, 'admin-token');
    adminToken = secret.value;
    if (secret.created) {
      // Shown once, by design (DESIGN.md: ADMIN_TOKEN); deliberately not through the logger.
      process.stdout.write(
        `Operator API token (shown once; kept in ${config.dataDir}/admin-token): ${adminToken}\n`,
      );
    }
  }

  const jwtSecret = config.jwtSecret ?? (await loadOrCreateSecret(config.dataDir, 'jwt-secret')).value;
  const secretsKey = config.secretsKey ?? (await loadOrCreateSecret(config.dataDir, 'secrets-key')).value;

  // Benchmarks only (docs/performance.md); when off, no driver is wrapped.
  const countFile = config.countStatementsFile;
  const statementCounter = countFile === undefined ? undefined : createStatementCounter();
  if (statementCounter && countFile) reportStatementsOnSignal(statementCounter, countFile);
  const database = await openDatabase({
    ...(config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'pglite', dataDir: pgliteDir(config.dataDir), sharedBuffers: config.pgliteSharedBuffers }),
    statementCounter,
  });
  const app = await buildApp({
    config: { ...config, adminToken, jwtSecret, secretsKey },
    db: database.db,
    logger,
    ownsDatabase: database.kind === 'pglite',
    listen: database.listen,
    trustProxy: config.trustProxy,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    try {
      await app.close();
      await database.close();
    } finally {
      releaseDataDir();
    }
    try {
      logDestination.flushSync();
    } catch {
      // Nothing left to write, or stdout is gone.
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  // startMs: from the process's start (performance.timeOrigin) until it listens.
  logger.info({ database: database.kind, dataDir: config.dataDir, startMs: Math.round(performance.now()) }, 'parley started');
}

main().catch((error: unknown) => {
  process.stderr.write(`parley failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
