// Saved replies of an account (issue #25): each member of the account may use and keep them; short codes are unique
// per account.
import type { CannedResponse } from '@parley/contracts';
import { Errors } from '../errors.ts';
import { isUuid, newId } from '../lib/ids.ts';
import type { CannedResponsesStore } from './canned-responses-store.ts';

export function createCannedResponsesService(store: CannedResponsesStore) {
  return {
    async list(accountId: string): Promise<{ cannedResponses: CannedResponse[] }> {
      return { cannedResponses: await store.list(accountId) };
    },

    async create(accountId: string, input: { shortCode: string; text: string }): Promise<CannedResponse> {
      const row = await store.insert({ id: newId(), accountId, shortCode: input.shortCode, text: input.text });
      if (!row) throw Errors.shortCodeTaken();
      return row;
    },

    async update(accountId: string, id: string, input: { shortCode: string; text: string }): Promise<CannedResponse> {
      const result = isUuid(id) ? await store.update(accountId, id, input) : 'missing';
      if (result === 'missing') throw Errors.cannedResponseNotFound();
      if (result === 'taken') throw Errors.shortCodeTaken();
      return result;
    },

    async remove(accountId: string, id: string): Promise<{ success: true }> {
      if (!(isUuid(id) && (await store.remove(accountId, id)))) throw Errors.cannedResponseNotFound();
      return { success: true };
    },
  };
}

export type CannedResponsesService = ReturnType<typeof createCannedResponsesService>;
