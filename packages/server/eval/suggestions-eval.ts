// `npm run eval:suggestions`: how often the Inbox's reply suggestions (issue #44, item 3) hold the team's answer.
// On the knowledge-base eval's three fixtures (kb-fixture.json, kb-fixture-holdout.json, kb-fixture-bike.json: a
// clothing shop, a phone and internet provider, a bicycle repair shop), each customer paraphrase of an entry is a
// question the knowledge covers and the entry's answer is the team's answer to it. Each base is loaded into an
// in-memory PGlite with its sentence vectors computed as the server does; each question gets its suggestions as
// the server makes them (suggestions-service.ts: the best 3 of the base's entries and passages by the agent's
// retrieval); a question counts when the team's answer agrees with one of them by the replay's own similarity
// (replays/agreement.ts, the knowledge-base engine's verdict: the same text, most words shared, or the team's
// answer finding that entry first). The target: ≥ 0.60. Per fixture and together; `--check` exits 1 below it.
import { readFile } from 'node:fs/promises';
import { RETRIEVED_SUGGESTIONS_MAX } from '@parley/contracts';
import { openDatabase } from '../src/db/client.ts';
import { EVAL_AUDIT, evalKnowledge } from './eval-knowledge.ts';
import { createSentenceEncoder } from '../src/knowledge/encoder/sentence-encoder.ts';
import { createEntryVectors } from '../src/knowledge/entry-vectors.ts';
import { createRetriever } from '../src/knowledge/retrieval.ts';
import { createAgreement } from '../src/replays/agreement.ts';
import { bestSuggestions, candidatesOf } from '../src/suggestions/suggestions-service.ts';

interface Fixture {
  language: string;
  entries: { question: string; synonyms: string[]; answer: string; paraphrases: string[] }[];
}

const TARGET = 0.6;
const check = process.argv.includes('--check');
const names = ['kb-fixture', 'kb-fixture-holdout', 'kb-fixture-bike'];

const database = await openDatabase({ kind: 'pglite' });
const encoder = createSentenceEncoder();
let below: boolean;
try {
  const { accountId, store, knowledge } = await evalKnowledge(database.db);
  const vectors = createEntryVectors({ store, encoder, embeddings: { embed: () => Promise.reject(new Error('no provider in the eval')) } });
  const retriever = createRetriever({ store, embed: async (text) => (await encoder.embed([text]))[0] ?? [] });
  const agreement = createAgreement({ retriever });
  let agreedAll = 0;
  let askedAll = 0;
  for (const name of names) {
    const fixture = JSON.parse(await readFile(new URL(`./${name}.json`, import.meta.url), 'utf8')) as Fixture;
    const base = await knowledge.createKnowledgeBase(accountId, { name, language: fixture.language }, EVAL_AUDIT);
    const ids: string[] = [];
    for (const { question, synonyms, answer } of fixture.entries) ids.push((await knowledge.addEntry(accountId, base.id, { question, synonyms, answer, source: 'manual' }, EVAL_AUDIT)).id);
    for (let at = 0; at < ids.length; at += 8) await Promise.all(ids.slice(at, at + 8).map((id) => vectors.embedEntry(base.id, id)));
    let agreed = 0;
    let asked = 0;
    for (const entry of fixture.entries) {
      for (const paraphrase of entry.paraphrases) {
        const found = await retriever.retrieveWithPassages(base.id, paraphrase, { entries: RETRIEVED_SUGGESTIONS_MAX, passages: RETRIEVED_SUGGESTIONS_MAX });
        const suggestions = bestSuggestions(candidatesOf({ ...found, saved: [] }));
        let agrees = false;
        for (const suggestion of suggestions) {
          const input = { engine: 'knowledge-base' as const, knowledgeBaseId: base.id, language: fixture.language, agentReply: suggestion.text, teamAnswer: entry.answer };
          if (await agreement.agrees(input)) {
            agrees = true;
            break;
          }
        }
        asked += 1;
        if (agrees) agreed += 1;
      }
    }
    agreedAll += agreed;
    askedAll += asked;
    console.log(`${name}: ${agreed}/${asked} covered questions agree with a suggestion (${(agreed / asked).toFixed(3)})`);
  }
  const share = agreedAll / askedAll;
  console.log(`all three: ${agreedAll}/${askedAll} (${share.toFixed(3)}); target ≥ ${TARGET.toFixed(2)}`);
  below = share < TARGET;
} finally {
  await encoder.close();
  await database.close();
}
if (check && below) process.exitCode = 1;
