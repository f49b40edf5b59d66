// Whether a build's outputs are newer than every file it is built from, so `npm start` and `npm test` rebuild
// only what changed (each packages/<name>/build.mjs asks before building).
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Newest modification time of a file, or of any file under a folder. */
export function newest(target) {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(target, { withFileTypes: true })) latest = Math.max(latest, newest(path.join(target, entry.name)));
  return latest;
}

/** True when every output exists and is newer than every input (files or folders). */
export function upToDate(outputs, inputs) {
  if (!outputs.every((file) => existsSync(file))) return false;
  const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  return inputs.every((input) => newest(input) < built);
}
