// Which Chromium the browser tests drive, and whether they run: read by support/browser.ts (the skip) and by
// scripts/test.mjs (one line per run), so both decide alike. Plain JavaScript because test.mjs runs without tsx.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';

export function chromiumPath(env = process.env) {
  return env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** CI as CI services set it (`CI=true`, some `CI=1`); unset, empty, `false` or `0` mean not. */
export function isCi(env = process.env) {
  const value = (env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== 'false' && value !== '0';
}

export function chromiumFound(env = process.env) {
  try {
    accessSync(chromiumPath(env), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why the browser tests are skipped (no Chromium, outside CI), or undefined when they run. */
export function browserSkipReason(env = process.env) {
  if (isCi(env) || chromiumFound(env)) return undefined;
  return `browser tests skipped: no Chromium at ${chromiumPath(env)}; to run them, install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary`;
}

/** The line `npm test` prints after running `files` (runner arguments) when browser tests among them were skipped. */
export function browserSkipNotice(files, env = process.env) {
  const reason = browserSkipReason(env);
  const usesBrowser = (file) => file.endsWith('.test.ts') && existsSync(file) && readFileSync(file, 'utf8').includes("from './support/browser.ts'");
  return reason !== undefined && files.some(usesBrowser) ? reason : undefined;
}
