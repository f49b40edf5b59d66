// A V8 CPU profile (node --cpu-prof) summed up: where the server's time goes, by self time and, for the project's
// own functions, by inclusive time (the function and everything it called).
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function place(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '').replace(/^.*\/packages\//, 'packages/');
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
}

function table(rows: [string, number][], totalUs: number): string {
  const lines = ['| % | ms | function |', '|---|---|---|'];
  for (const [key, us] of rows) lines.push(`| ${((100 * us) / totalUs).toFixed(1)} | ${(us / 1000).toFixed(0)} | ${key} |`);
  return lines.join('\n');
}

/** The `top` places by self time, and the project's functions by inclusive time, as Markdown tables. */
export async function summarizeProfile(file: string, top = 15): Promise<string> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfUsById = new Map<number, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    totalUs += delta;
    selfUsById.set(id, (selfUsById.get(id) ?? 0) + delta);
  });
  const selfUs = new Map<string, number>();
  const inclusiveUs = new Map<string, number>();
  for (const [id, us] of selfUsById) {
    const node = byId.get(id);
    if (!node) continue;
    selfUs.set(place(node), (selfUs.get(place(node)) ?? 0) + us);
    // Each function once per sample, however deep it recurses.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at);
      if (!frame || !frame.callFrame.url.includes('/packages/')) continue;
      const key = place(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusiveUs.set(key, (inclusiveUs.get(key) ?? 0) + us);
    }
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return `Self time (${(totalUs / 1e6).toFixed(1)} s sampled, start-up included):\n\n${table(sorted(selfUs), totalUs)}\n\n` +
    `The project's functions, inclusive time:\n\n${table(sorted(inclusiveUs), totalUs)}`;
}
