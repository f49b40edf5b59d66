// The team of an account (issue #25): who is on it, invitations, role changes and removals. Every change that ends
// a member's sessions tells every process at once (memberChanged).
import { randomBytes } from 'node:crypto';
import type { Invitation, Member } from '@parley/contracts';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid, newId } from '../lib/ids.ts';
import { sha256Hex } from '../lib/secrets.ts';
import { normalizeEmail } from './accounts-service.ts';
import type { ConsoleAccount } from './console-auth.ts';
import type { InvitationMailer } from './invitation-mailer.ts';
import type { MemberRow, MembersStore } from './members-store.ts';

/** An invitation link works once, for 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

export interface MembersServiceDeps {
  store: MembersStore;
  clock: Clock;
  mailer: InvitationMailer;
  /** PUBLIC_URL: invitation links are `{publicUrl}/invite/<token>`. */
  publicUrl: string;
  memberChanged: (memberId: string) => void;
  /**
   * Removes a member other than the owner, with what follows from it in the same transaction (its chats unassigned,
   * the paused ones flagged: alerts/alert-queue.ts); false when there is none such.
   */
  removeMember: (accountId: string, id: string) => Promise<boolean>;
}

function toMember(row: MemberRow): Member {
  return { id: row.id, email: row.email, name: row.name, role: row.role, status: row.status };
}

export function createMembersService({ store, clock, mailer, publicUrl, memberChanged, removeMember }: MembersServiceDeps) {
  /** A member of the account, or 404 (a member of another account is not found either). */
  async function memberOf(accountId: string, id: string): Promise<MemberRow> {
    const row = isUuid(id) ? await store.findInAccount(accountId, id) : undefined;
    if (!row) throw Errors.memberNotFound();
    return row;
  }

  async function remove(accountId: string, id: string): Promise<{ success: true }> {
    const member = await memberOf(accountId, id);
    if (member.role === 'owner') throw Errors.ownerNotRemovable();
    if (!(await removeMember(accountId, id))) throw Errors.memberNotFound();
    memberChanged(id);
    return { success: true };
  }

  return {
    remove,

    async list(accountId: string): Promise<{ members: Member[] }> {
      return { members: (await store.list(accountId)).map(toMember) };
    },

    async invite(
      inviter: ConsoleAccount,
      input: { email: string; name?: string | undefined; role: 'admin' | 'agent' },
    ): Promise<Invitation & { emailed: boolean }> {
      const email = normalizeEmail(input.email);
      // 32 random bytes: the link is the only credential until it is accepted; only its hash is stored.
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(clock.now().getTime() + INVITATION_TTL_MS);
      const row = await store.upsertInvitation({
        id: newId(),
        accountId: inviter.accountId,
        email,
        name: input.name?.trim() || email,
        role: input.role,
        inviteTokenHash: sha256Hex(token),
        inviteExpiresAt: expiresAt,
      });
      if (!row) throw Errors.memberExists();
      const inviteUrl = `${publicUrl}/invite/${token}`;
      const emailed = await mailer.send({ to: email, inviterName: inviter.name, role: input.role, inviteUrl, expiresAt });
      return { id: row.id, email: row.email, role: input.role, status: 'invited', inviteUrl, emailed };
    },

    async setRole(accountId: string, id: string, role: 'admin' | 'agent'): Promise<Member> {
      const member = await memberOf(accountId, id);
      if (member.role === 'owner') throw Errors.ownerRoleFixed();
      const updated = await store.setRole(accountId, id, role, clock.now());
      if (!updated) throw Errors.memberNotFound();
      memberChanged(id);
      return toMember(updated);
    },

    /** The operator's list: 404 for an unknown account. */
    async listOfAccount(accountId: string): Promise<{ members: Member[] }> {
      const rows = await store.list(accountId);
      if (rows.length === 0) throw Errors.accountNotFound();
      return { members: rows.map(toMember) };
    },

    /** The operator's removal, by member id alone. */
    async removeAnywhere(id: string): Promise<{ success: true }> {
      const member = await store.findById(id);
      if (!member) throw Errors.memberNotFound();
      return remove(member.accountId, id);
    },

  };
}

export type MembersService = ReturnType<typeof createMembersService>;
