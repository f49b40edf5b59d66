// What the knowledge evals share: an account in a fresh embedded database and the console's knowledge service over
// it, as the app makes it, with an audit log that keeps nothing and a URL guard (the evals name no provider).
import { randomBytes } from 'node:crypto';
import { operatorContext } from '../src/audit/audit-record.ts';
import type { Database } from '../src/db/client.ts';
import { accounts } from '../src/db/schema.ts';
import { createUrlGuard } from '../src/kernel/url-guard.ts';
import { systemClock } from '../src/lib/clock.ts';
import { newId } from '../src/lib/ids.ts';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { createKnowledgeService } from '../src/knowledge/knowledge-service.ts';
import { createKnowledgeStore } from '../src/knowledge/knowledge-store.ts';

/** The operator's context: the evals' bases and entries are made as the admin CLI would. */
export const EVAL_AUDIT = operatorContext();

export async function evalKnowledge(db: Database) {
  const accountId = newId();
  await db.insert(accounts).values({ id: accountId, email: `eval-${accountId}@example.com` });
  const store = createKnowledgeStore(db, createSecretBox(randomBytes(32).toString('hex')));
  const knowledge = createKnowledgeService({
    store,
    clock: systemClock,
    urlGuard: createUrlGuard({ allowPrivateNetworks: false }),
    audit: async () => {},
  });
  return { accountId, store, knowledge };
}
