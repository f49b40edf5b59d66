// A knowledge base's question-and-answer entries (console API), and the corrections the dislike endpoint
// teaches through `learnCorrection`; part of the knowledge service (knowledge-service.ts).
import { SYNONYMS_MAX, type KnowledgeEntry } from '@parley/contracts';
import { diffChanges, type AuditContext, type AuditRecorder } from '../audit/audit-record.ts';
import { Errors } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import type { Clock } from '../lib/clock.ts';
import type { EntrySource, KnowledgeStore } from './knowledge-store.ts';
import type { LearnedQuestionRow, LearnedQuestionsStore } from './learned-questions-store.ts';
import { questionKey, questionKeys } from './normalize.ts';
import { textSearchConfig, type TextSearchConfig } from './text-search.ts';

export interface NewEntry {
  question: string;
  synonyms?: string[];
  answer: string;
  source: EntrySource;
  /** The disliked agent reply a correction came from. */
  messageId?: string | null;
  /** No-model path: the action run when the entry matches (one of the account's). */
  actionId?: string | null;
}

/** What the entries use; the knowledge service's dependencies include these (knowledge-service.ts). */
export interface KnowledgeEntriesDeps {
  store: KnowledgeStore;
  clock: Clock;
  /**
   * An entry's text was written, or its base's embeddings provider changed: its sentence vectors are to be
   * computed (enqueues `knowledge.embed`).
   */
  entryWritten?: (knowledgeBaseId: string, entryId: string) => Promise<void>;
  /** The phrasings customers chose for entries (clarifying choices); absent: none shown. */
  learned?: LearnedQuestionsStore;
  /**
   * For each phrasing customers chose for an entry of the base, the other entries it is as close to (retrieval.ts
   * `competing`), in the same order; absent: none.
   */
  competing?: (knowledgeBaseId: string, phrasings: readonly { entryId: string; text: string }[]) => Promise<{ entryId: string; question: string }[][]>;
  /** Writes an audit event (a console change to an entry: with its audit context). */
  audit?: AuditRecorder;
  /**
   * Runs a change in one database transaction, given the dependencies that write over it: the rows, the base's new
   * version, the vectors' job and the audit event commit together or not at all. Absent (a service already over a
   * transaction): the change runs with these very dependencies.
   */
  transaction?: <T>(change: (writes: EntryWrites) => Promise<T>) => Promise<T>;
}

/** What a change writes through, over its transaction. */
export type EntryWrites = Pick<KnowledgeEntriesDeps, 'store' | 'entryWritten' | 'audit' | 'learned'>;

/** An entry's fields in the audit log. */
const entryFields = (row: { question: string; synonyms: string[]; answer: string; actionId: string | null }) => ({
  question: row.question,
  synonyms: row.synonyms,
  answer: row.answer,
  actionId: row.actionId,
});

/** An entry's text with one more synonym (a correction's question, a learned phrasing kept), and its keys. */
function withSynonym(row: { question: string; synonyms: string[]; answer: string }, synonym: string) {
  const synonyms = [...row.synonyms, synonym];
  return { question: row.question, synonyms, answer: row.answer, keys: questionKeys(row.question, synonyms) };
}

/** A learned phrasing as the console shows it: with the entries it competes with. */
type LearnedPhrasing = LearnedQuestionRow & { competing: { entryId: string; question: string }[] };

type EntryRow = NonNullable<Awaited<ReturnType<KnowledgeStore['findEntry']>>>;

function toEntry(row: EntryRow, learned: readonly LearnedPhrasing[] = []): KnowledgeEntry {
  return {
    ...row,
    learnedQuestions: learned.filter((q) => q.entryId === row.id).map(({ id, text, picks, customers, competing }) => ({ id, text, picks, customers, competing })),
    // The table's check constraint admits only these two values.
    source: row.source as EntrySource,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function createKnowledgeEntries(deps: KnowledgeEntriesDeps) {
  const { store, clock, learned, competing } = deps;
  const transaction = deps.transaction ?? (<T>(change: (writes: EntryWrites) => Promise<T>) => change(deps));

  /** The phrasings waiting for the team on these entries of the base, each with the entries it competes with. */
  async function learnedOf(knowledgeBaseId: string, entryIds: readonly string[]): Promise<LearnedPhrasing[]> {
    const rows = learned ? await learned.listFor(entryIds) : [];
    const others = competing && rows.length > 0 ? await competing(knowledgeBaseId, rows) : [];
    return rows.map((row, i) => ({ ...row, competing: others[i] ?? [] }));
  }

  /** After every entry write, in its transaction: processes rebuild their copy of the base, and the vectors follow. */
  async function changed(writes: EntryWrites, knowledgeBaseId: string, entryId: string | undefined): Promise<void> {
    await writes.store.bumpEntriesVersion(knowledgeBaseId);
    if (entryId !== undefined && writes.entryWritten) await writes.entryWritten(knowledgeBaseId, entryId);
  }

  /**
   * An entry's change in the audit log, in its transaction, when it has an author (a console change, a correction)
   * and changed a field: `before`/`after` undefined for a creation/deletion.
   */
  async function audit(
    writes: EntryWrites,
    context: AuditContext | undefined,
    accountId: string,
    kind: 'knowledge_entry.created' | 'knowledge_entry.updated' | 'knowledge_entry.deleted',
    entry: EntryRow,
    before: EntryRow | undefined,
    after: EntryRow | undefined,
  ): Promise<void> {
    const changes = diffChanges(before && entryFields(before), after && entryFields(after));
    if (!context || !writes.audit || Object.keys(changes).length === 0) return;
    await writes.audit(context, { accountId, kind, target: { type: 'knowledge_entry', id: entry.id, name: entry.question }, changes });
  }

  /** An entry may answer only with an action of its own account (400 otherwise). */
  async function requireAction(accountId: string, actionId: string): Promise<void> {
    if (!(await store.actionExists(accountId, actionId))) throw Errors.actionRefNotFound('actionId', actionId);
  }

  /** The text-search configuration of the account's base, or 404. */
  async function searchConfigOf(accountId: string, knowledgeBaseId: string): Promise<TextSearchConfig> {
    const language = await store.findBaseLanguage(accountId, knowledgeBaseId);
    if (language === undefined) throw Errors.knowledgeBaseNotFound();
    return textSearchConfig(language);
  }

  return {
    async listEntries(
      accountId: string,
      knowledgeBaseId: string,
      page: { limit?: number; offset?: number; q?: string },
    ): Promise<{ entries: KnowledgeEntry[]; count: number }> {
      await searchConfigOf(accountId, knowledgeBaseId);
      const { rows, count } = await store.listEntries(accountId, knowledgeBaseId, {
        limit: page.limit ?? 100,
        offset: page.offset ?? 0,
        q: page.q?.trim() || undefined,
      });
      const phrasings = await learnedOf(knowledgeBaseId, rows.map((row) => row.id));
      return { entries: rows.map((row) => toEntry(row, phrasings)), count };
    },

    /** `context`: a console change, audited. */
    async addEntry(accountId: string, knowledgeBaseId: string, input: NewEntry, context?: AuditContext): Promise<KnowledgeEntry> {
      const config = await searchConfigOf(accountId, knowledgeBaseId);
      if (input.actionId) await requireAction(accountId, input.actionId);
      const entry = await transaction(async (writes) => {
        const inserted = await writes.store.insertEntry(
          accountId,
          {
            id: newId(),
            knowledgeBaseId,
            question: input.question,
            synonyms: input.synonyms ?? [],
            answer: input.answer,
            keys: questionKeys(input.question, input.synonyms ?? []),
            source: input.source,
            messageId: input.messageId ?? null,
            actionId: input.actionId ?? null,
            now: clock.now(),
          },
          config,
        );
        // The base was deleted between the two statements.
        if (!inserted) throw Errors.knowledgeBaseNotFound();
        await changed(writes, knowledgeBaseId, inserted.id);
        await audit(writes, context, accountId, 'knowledge_entry.created', inserted, undefined, inserted);
        return inserted;
      });
      return toEntry(entry);
    },

    /**
     * A correction (dislike with `textEdit`): the customer's question with the right answer. When an entry already
     * gives that answer (an earlier correction, or the entry the team meant), the question joins its synonyms, so
     * paraphrases gather on one entry and the engine learns with use; otherwise a new `correction` entry (the spec's
     * question-and-answer pair). An entry with SYNONYMS_MAX synonyms gets a new entry instead.
     */
    async learnCorrection(
      accountId: string,
      knowledgeBaseId: string,
      input: { question: string; answer: string; messageId: string },
      context?: AuditContext,
    ): Promise<KnowledgeEntry> {
      const config = await searchConfigOf(accountId, knowledgeBaseId);
      const same = await store.findByAnswer(knowledgeBaseId, input.answer);
      const key = questionKey(input.question);
      if (same && key.length > 0) {
        const keys = questionKeys(same.question, same.synonyms);
        if (keys.includes(key)) return toEntry(same);
        if (same.synonyms.length < SYNONYMS_MAX) {
          const text = withSynonym(same, input.question);
          const entry = await transaction(async (writes) => {
            const updated = await writes.store.updateEntry(accountId, knowledgeBaseId, same.id, text, config, clock.now());
            if (!updated) return undefined;
            await changed(writes, knowledgeBaseId, updated.id);
            await audit(writes, context, accountId, 'knowledge_entry.updated', updated, same, updated);
            return updated;
          });
          if (entry) return toEntry(entry);
        }
      }
      return this.addEntry(accountId, knowledgeBaseId, { ...input, source: 'correction' }, context);
    },

    async updateEntry(
      accountId: string,
      knowledgeBaseId: string,
      entryId: string,
      patch: { question?: string; synonyms?: string[]; answer?: string; actionId?: string | null },
      context?: AuditContext,
    ): Promise<KnowledgeEntry> {
      const config = await searchConfigOf(accountId, knowledgeBaseId);
      const current = await store.findEntry(accountId, knowledgeBaseId, entryId);
      if (!current) throw Errors.entryNotFound();
      if (patch.actionId !== undefined && patch.actionId !== current.actionId && patch.actionId !== null) await requireAction(accountId, patch.actionId);
      const entry = await transaction(async (writes) => {
        const audited = (after: EntryRow) => audit(writes, context, accountId, 'knowledge_entry.updated', after, current, after);
        let written: EntryRow | undefined = current;
        if (patch.actionId !== undefined && patch.actionId !== written.actionId) {
          written = await writes.store.setEntryAction(accountId, knowledgeBaseId, entryId, patch.actionId, clock.now());
          if (!written) throw Errors.entryNotFound();
        }
        // Nothing to change: the entry as it is, `updatedAt` untouched.
        if (patch.question === undefined && patch.synonyms === undefined && patch.answer === undefined) {
          await audited(written);
          return written;
        }
        const question = patch.question ?? written.question;
        const synonyms = patch.synonyms ?? written.synonyms;
        const text = { question, synonyms, answer: patch.answer ?? written.answer, keys: questionKeys(question, synonyms) };
        written = await writes.store.updateEntry(accountId, knowledgeBaseId, entryId, text, config, clock.now());
        if (!written) throw Errors.entryNotFound();
        await changed(writes, knowledgeBaseId, written.id);
        await audited(written);
        return written;
      });
      // The view (with the phrasings' competing entries, which may ask an embeddings provider) after the commit.
      return toEntry(entry, await learnedOf(knowledgeBaseId, [entryId]));
    },

    /**
     * A phrasing customers chose becomes one of the entry's synonyms (once), and leaves the learned ones; kept, it is
     * answered directly only while unambiguous (retrieval.ts), so its row stays, marked kept.
     */
    async keepLearnedQuestion(
      accountId: string,
      knowledgeBaseId: string,
      entryId: string,
      learnedId: string,
      context?: AuditContext,
    ): Promise<KnowledgeEntry> {
      const phrasing = learned && (await learned.find(accountId, knowledgeBaseId, entryId, learnedId));
      if (!learned || !phrasing) throw Errors.learnedQuestionNotFound();
      const current = await store.findEntry(accountId, knowledgeBaseId, entryId);
      if (!current) throw Errors.learnedQuestionNotFound();
      const known = questionKeys(current.question, current.synonyms).includes(questionKey(phrasing.text));
      if (!known && current.synonyms.length >= SYNONYMS_MAX) throw Errors.tooManySynonyms();
      if (known) {
        // The team's own wording already: only the learned row goes (it is answered directly as any synonym).
        await learned.delete(accountId, knowledgeBaseId, entryId, learnedId);
      } else {
        // Marked kept with the synonym it becomes, and audited as the entry's change, in one transaction: every
        // process rebuilds its index with both, and a phrasing is never kept without its synonym.
        const config = await searchConfigOf(accountId, knowledgeBaseId);
        await transaction(async (writes) => {
          await (writes.learned ?? learned).keep(accountId, knowledgeBaseId, entryId, learnedId, clock.now());
          const text = withSynonym(current, phrasing.text);
          const written = await writes.store.updateEntry(accountId, knowledgeBaseId, entryId, text, config, clock.now());
          if (!written) throw Errors.learnedQuestionNotFound();
          await changed(writes, knowledgeBaseId, written.id);
          await audit(writes, context, accountId, 'knowledge_entry.updated', written, current, written);
        });
      }
      const entry = await store.findEntry(accountId, knowledgeBaseId, entryId);
      if (!entry) throw Errors.learnedQuestionNotFound();
      return toEntry(entry, await learnedOf(knowledgeBaseId, [entryId]));
    },

    async discardLearnedQuestion(accountId: string, knowledgeBaseId: string, entryId: string, learnedId: string): Promise<{ success: true }> {
      if (!learned || !(await learned.delete(accountId, knowledgeBaseId, entryId, learnedId))) throw Errors.learnedQuestionNotFound();
      return { success: true };
    },

    async deleteEntry(accountId: string, knowledgeBaseId: string, entryId: string, context?: AuditContext): Promise<{ success: true }> {
      await searchConfigOf(accountId, knowledgeBaseId);
      const current = await store.findEntry(accountId, knowledgeBaseId, entryId);
      await transaction(async (writes) => {
        if (!(await writes.store.deleteEntry(accountId, knowledgeBaseId, entryId))) throw Errors.entryNotFound();
        if (current) await audit(writes, context, accountId, 'knowledge_entry.deleted', current, current, undefined);
        await changed(writes, knowledgeBaseId, undefined);
      });
      return { success: true };
    },
  };
}
