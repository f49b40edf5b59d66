// Process entry: reads the environment once, checks the address can be listened on, opens the database,
// builds the app, listens, and stops cleanly on SIGTERM or SIGINT within SHUTDOWN_GRACE_SECONDS (see `stopOnSignals`).
import { createServer } from 'node:net';
import path from 'node:path';
import { pino } from 'pino';
import type { buildApp } from './app.ts';
import { BackupError, writeBackup, type DumpWithFiles } from './backup/backup.ts';
import { Errors } from './errors.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase, pgliteDir } from './db/client.ts';
import { createStatementCounter, reportStatementsOnSignal } from './db/statement-counter.ts';
import { DataDirLockedError, lockDataDir } from './db/data-dir-lock.ts';
import { objectStoreId, separateDataDirWarning, sharesFileStore, sharesStore } from './files/file-store-identity.ts';
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
  // The app's modules (about half of a restart) load while the environment is checked and the database opens.
  const appModule = import('./app.ts');
  appModule.catch(() => {}); // a failure is reported where it is awaited
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
      releaseDataDir = await lockDataDir(config.dataDir);
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
      // Shown once, by design (docs/architecture.md: ADMIN_TOKEN); deliberately not through the logger.
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
    ...(config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl, timeouts: config.databaseTimeouts } : { kind: 'pglite', dataDir: pgliteDir(config.dataDir), sharedBuffers: config.pgliteSharedBuffers }),
    statementCounter,
  });
  // With PGlite the database lives in DATA_DIR: nothing to share. With a server, every process must see one store.
  const storeShared = () =>
    config.s3 ? sharesStore(database.db, objectStoreId(config.s3)) : sharesFileStore(database.db, path.join(config.dataDir, 'files'));
  if (database.kind === 'postgres' && !(await storeShared())) {
    logger.warn({ dataDir: config.dataDir }, separateDataDirWarning(config.dataDir));
  }
  const handBack = new AbortController();
  const { buildApp } = await appModule;
  const app = await buildApp({
    config: { ...config, adminToken, jwtSecret, secretsKey },
    db: database.db,
    logger,
    ownsDatabase: database.kind === 'pglite',
    listen: database.listen,
    trustProxy: config.trustProxy,
    handBack: handBack.signal,
    backup: backupOf(database.dumpWithFiles, config.dataDir),
  });
  stopOnSignals({ app, database, logger, graceMs: config.shutdownGraceSeconds * 1000, handBack, releaseDataDir, flush: () => logDestination.flushSync() });

  await app.listen({ port: config.port, host: config.host });
  // startMs: from the process's start (performance.timeOrigin) until it listens.
  logger.info({ database: database.kind, dataDir: config.dataDir, startMs: Math.round(performance.now()) }, 'parley started');
  // Said once, so an operator knows why no invitation, password reset or alert e-mail arrives.
  if (!config.smtpUrl) {
    logger.warn('SMTP_URL is not set: no e-mails are sent (invitations and password resets are links to pass on; `reset-password --email` makes one)');
  }
}

/** `POST /admin/v1/backup` of this process's PGlite and DATA_DIR (none with a PostgreSQL server). */
function backupOf(dump: DumpWithFiles | undefined, dataDir: string) {
  if (!dump) return undefined;
  return (file: string) =>
    writeBackup(dataDir, file, dump).catch((error: unknown) => {
      throw error instanceof BackupError ? Errors.backupRefused(error.message) : error;
    });
}

/**
 * SIGTERM or SIGINT: the app closes (no new connections, and 503 to new requests on open ones; the workers stop
 * claiming while in-flight requests, jobs and webhook attempts finish), then the database, and the process exits 0.
 * When the last part of SHUTDOWN_GRACE_SECONDS begins (a quarter of it, at most 5 s), jobs and deliveries still
 * running give their leases back (taken at once by another process or the next start) and open connections are
 * closed, so the close ends in time. Past the grace (something hung) the process exits 1.
 */
function stopOnSignals(options: {
  app: Awaited<ReturnType<typeof buildApp>>;
  database: { close(): Promise<void> };
  logger: ReturnType<typeof createLogger>;
  graceMs: number;
  handBack: AbortController;
  releaseDataDir: () => void;
  flush: () => void;
}): void {
  const { app, database, logger, graceMs, handBack } = options;
  const exit = (code: number): never => {
    try {
      options.flush();
    } catch {
      // Nothing left to write, or stdout is gone.
    }
    process.exit(code);
  };
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceSeconds: graceMs / 1000 }, 'stopping');
    setTimeout(() => {
      logger.warn('shutdown grace nearly over: handing back running jobs and deliveries, closing open connections');
      handBack.abort();
      app.server.closeAllConnections();
    }, graceMs - Math.min(5_000, graceMs / 4)).unref();
    setTimeout(() => {
      logger.error('not stopped within SHUTDOWN_GRACE_SECONDS; exiting');
      options.releaseDataDir();
      exit(1);
    }, graceMs).unref();
    try {
      await app.close();
      await database.close();
    } finally {
      options.releaseDataDir();
    }
    logger.info('stopped');
    exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`parley failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
