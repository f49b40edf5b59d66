// A customer's data (issue #45, item 5; DESIGN "Security and privacy"): exported as a zip (customer.json and their
// files) or erased. Found by e-mail (the account's chats with it, on every channel) or by one chat (that chat and the
// chats with its e-mail). Erasing is one transaction; the files go from the store after it commits.
import { PassThrough, type Readable } from 'node:stream';
import { once } from 'node:events';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { recordAudit, type AuditContext } from '../audit/audit-record.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { fileKeyOf, type FileStorage } from '../files/file-storage.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid } from '../lib/ids.ts';
import { createCustomerDataStore, type CustomerDataStore } from './customer-data-store.ts';

export interface CustomerQuery {
  email?: string | undefined;
  chatId?: string | undefined;
}

export interface CustomerDataDeps {
  db: Database;
  storeOf?: (db: Executor) => CustomerDataStore;
  files: Pick<FileStorage, 'open' | 'remove'>;
  /** PUBLIC_URL: which attachment links are files of this server. */
  publicUrl: string;
  clock: Clock;
  logger: FastifyBaseLogger;
}

/** A name safe as one path segment of a zip entry. */
function entryName(name: string): string {
  const safe = Array.from(name, (character) => (character.charCodeAt(0) < 32 || '\\/:*?"<>|'.includes(character) ? '_' : character)).join('');
  return safe.slice(0, 150) || 'file';
}

export function createCustomerDataService({ db, storeOf = createCustomerDataStore, files, publicUrl, clock, logger }: CustomerDataDeps) {
  const store = storeOf(db);

  /** The customer's chats in the account; 400 unless exactly one of email and chatId, 404 when none. */
  async function chatsOf(accountId: string, query: CustomerQuery): Promise<string[]> {
    const email = query.email?.trim();
    if ((email === undefined) === (query.chatId === undefined) || email === '') throw Errors.customerQueryInvalid();
    let ids: string[];
    if (email !== undefined) {
      ids = await store.chatIdsByEmail(accountId, email);
    } else {
      const chat = query.chatId !== undefined && isUuid(query.chatId) ? await store.chatOf(accountId, query.chatId) : undefined;
      if (!chat) throw Errors.customerNotFound();
      ids = chat.email ? [...new Set([chat.id, ...(await store.chatIdsByEmail(accountId, chat.email))])] : [chat.id];
    }
    if (ids.length === 0) throw Errors.customerNotFound();
    return ids;
  }

  /** Writes the zip of `document` and the files into `out`, minding its back-pressure. */
  async function writeZip(out: PassThrough, document: unknown, entries: { path: string; key: string }[]): Promise<void> {
    const zip = new Zip((error, chunk, final) => {
      if (error) out.destroy(error);
      else {
        out.write(chunk);
        if (final) out.end();
      }
    });
    const drained = async () => {
      if (out.writableNeedDrain) await once(out, 'drain');
    };
    const json = new ZipDeflate('customer.json', { level: 6 });
    zip.add(json);
    json.push(new TextEncoder().encode(`${JSON.stringify(document, null, 2)}\n`), true);
    await drained();
    for (const entry of entries) {
      const opened = await files.open(entry.key);
      if (!opened) continue;
      const file = new ZipPassThrough(entry.path);
      zip.add(file);
      for await (const chunk of opened.stream as AsyncIterable<Buffer>) {
        file.push(chunk);
        await drained();
      }
      file.push(new Uint8Array(0), true);
    }
    zip.end();
  }

  /** The customer in the log: the chat asked for, or (asked by e-mail) no id and no name. */
  const customerTarget = (query: CustomerQuery) => ({ type: 'customer', id: query.chatId ?? null, name: null });

  return {
    /** The zip's bytes as they are made (an error after the first byte ends the download short). */
    async export(accountId: string, query: CustomerQuery, audit: AuditContext): Promise<Readable> {
      const ids = await chatsOf(accountId, query);
      // Who exported whose data: the chat asked for (never the e-mail: the log keeps no customer's data).
      await recordAudit(db, audit, { accountId, kind: 'customer.exported', target: customerTarget(query), changes: { chats: [null, ids.length] } });
      const [chats, messages, notes, ratings] = await Promise.all([store.chats(ids), store.messages(ids), store.notes(ids), store.ratings(ids)]);
      const entries: { path: string; key: string }[] = [];
      const document = {
        exportedAt: clock.now().toISOString(),
        customer: query.email !== undefined ? { email: query.email.trim() } : { chatId: query.chatId },
        chats: chats.map((chat) => ({
          id: chat.id,
          channel: { id: chat.channelId, kind: chat.channelKind, name: chat.channelName },
          name: chat.dialogName,
          email: chat.email,
          photoUrl: chat.photoUrl,
          externalChatId: chat.externalChatId,
          uniqueId: chat.uniqueId,
          createdAt: chat.createdAt.toISOString(),
          messages: messages
            .filter((message) => message.chatId === chat.id)
            .map((message) => ({
              id: message.id,
              role: message.role,
              origin: message.origin,
              senderName: message.senderName,
              text: message.text,
              rating: message.rating,
              createdAt: message.createdAt.toISOString(),
              attachments: message.attachments.map((attachment, index) => {
                const key = fileKeyOf(publicUrl, attachment.url);
                const path = key ? `files/${message.id}-${index + 1}-${entryName(attachment.name)}` : null;
                if (key && path) entries.push({ path, key });
                return { name: attachment.name, contentType: attachment.contentType, fileSize: attachment.fileSize, url: attachment.url, file: path };
              }),
            })),
          notes: notes
            .filter((note) => note.chatId === chat.id)
            .map((note) => ({ id: note.id, authorName: note.authorName, text: note.text, createdAt: note.createdAt.toISOString() })),
          ratings: ratings
            .filter((rating) => rating.chatId === chat.id)
            .map((rating) => ({ conversationId: rating.conversationId, rating: rating.rating, comment: rating.comment, at: rating.at?.toISOString() ?? null })),
        })),
      };
      const out = new PassThrough();
      writeZip(out, document, entries).catch((error: unknown) => {
        logger.warn({ err: error }, 'exporting customer data failed');
        out.destroy(error instanceof Error ? error : new Error(String(error)));
      });
      return out;
    },

    /** Erases the customer's chats; the counts of what went. */
    async erase(accountId: string, query: CustomerQuery, audit: AuditContext): Promise<{ chats: number; messages: number; files: number }> {
      const ids = await chatsOf(accountId, query);
      const erased = await db.transaction(async (tx) => {
        const done = await storeOf(tx).erase(ids);
        // The counts only: nothing erased is kept here.
        await recordAudit(tx, audit, {
          accountId,
          kind: 'customer.erased',
          target: customerTarget(query),
          changes: { chats: [null, ids.length], messages: [null, done.messages] },
        });
        return done;
      });
      const keys = new Set(erased.attachments.flatMap((attachment) => fileKeyOf(publicUrl, attachment.url) ?? []));
      let removed = 0;
      for (const key of keys) {
        try {
          await files.remove(key);
          removed += 1;
        } catch (error) {
          logger.warn({ err: error, key }, 'removing an erased customer file failed');
        }
      }
      return { chats: ids.length, messages: erased.messages, files: removed };
    },
  };
}

export type CustomerDataService = ReturnType<typeof createCustomerDataService>;
