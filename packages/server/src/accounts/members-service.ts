// The team of an account (issue #25): who is on it, invitations, role changes and removals. Every change that ends
// a member's sessions tells every process at once (memberChanged).
import { randomBytes } from 'node:crypto';
import type { Invitation, InvitationLink, Member } from '@parley/contracts';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid, newId } from '../lib/ids.ts';
import { sha256Hex } from '../lib/secrets.ts';
import { normalizeEmail } from './accounts-service.ts';
import { recordAudit, type AuditContext } from '../audit/audit-record.ts';
import type { Database, Transaction } from '../db/client.ts';
import type { ConsoleAccount } from '../http/console/console-account.ts';
import type { InvitationMailer } from '../kernel/mailer.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { createMembersStore, type MemberRow, type MembersStore } from './members-store.ts';

/** An invitation link works once, for 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

export interface MembersServiceDeps {
  store: MembersStore;
  /** The changes and their audit events are written in one transaction. */
  db: Database;
  clock: Clock;
  mailer: InvitationMailer;
  /** Seals the link's token at rest, so an admin can show the same link again (SECRETS_KEY). */
  secretBox: Pick<SecretBox, 'seal' | 'open'>;
  /** PUBLIC_URL: invitation links are `{publicUrl}/invite/<token>`. */
  publicUrl: string;
  memberChanged: (memberId: string) => void;
  /**
   * Removes a member other than the owner, with what follows from it in the same transaction (its chats unassigned,
   * the paused ones flagged: alerts/alert-queue.ts) and its audit event; false when there is none such.
   */
  removeMember: (accountId: string, id: string, audit: (tx: Transaction) => Promise<void>) => Promise<boolean>;
}

function toMember(row: MemberRow): Member {
  return { id: row.id, email: row.email, name: row.name, role: row.role, status: row.status, capacity: row.capacity ?? null };
}

export function createMembersService({ store, db, clock, mailer, secretBox, publicUrl, memberChanged, removeMember }: MembersServiceDeps) {
  /** A member of the account, or 404 (a member of another account is not found either). */
  async function memberOf(accountId: string, id: string): Promise<MemberRow> {
    const row = isUuid(id) ? await store.findInAccount(accountId, id) : undefined;
    if (!row) throw Errors.memberNotFound();
    return row;
  }

  async function remove(accountId: string, id: string, audit: AuditContext): Promise<{ success: true }> {
    const member = await memberOf(accountId, id);
    if (member.role === 'owner') throw Errors.ownerNotRemovable();
    const recorded = (tx: Parameters<typeof recordAudit>[0]) =>
      recordAudit(tx, audit, {
        accountId,
        kind: member.status === 'invited' ? 'invitation.revoked' : 'member.removed',
        target: { type: 'member', id, name: member.name },
        changes: { email: [member.email, null], role: [member.role, null] },
      });
    if (!(await removeMember(accountId, id, recorded))) throw Errors.memberNotFound();
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
      audit: AuditContext,
    ): Promise<Invitation & { emailed: boolean }> {
      const email = normalizeEmail(input.email);
      // 32 random bytes: the link is the only credential until it is accepted; its hash finds it, and it is kept
      // sealed (never in the clear) only so that the team page can show it again until it is accepted.
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(clock.now().getTime() + INVITATION_TTL_MS);
      // The invitation (new or renewed) and its event in one transaction; the e-mail goes out after it.
      const row = await db.transaction(async (tx) => {
        const invited = await createMembersStore(tx).upsertInvitation({
          id: newId(),
          accountId: inviter.accountId,
          email,
          name: input.name?.trim() || email,
          role: input.role,
          inviteTokenHash: sha256Hex(token),
          inviteTokenSealed: secretBox.seal(token),
          inviteExpiresAt: expiresAt,
        });
        if (invited) {
          await recordAudit(tx, audit, {
            accountId: inviter.accountId,
            kind: 'member.invited',
            target: { type: 'member', id: invited.id, name: invited.name },
            changes: { email: [null, invited.email], role: [null, input.role] },
          });
        }
        return invited;
      });
      if (!row) throw Errors.memberExists();
      const inviteUrl = `${publicUrl}/invite/${token}`;
      const emailed = await mailer.send({ to: email, inviterName: inviter.name, role: input.role, inviteUrl, expiresAt });
      return { id: row.id, email: row.email, role: input.role, status: 'invited', inviteUrl, emailed };
    },

    /** A pending invitation's link as sent (the same until renewed), whether it still works; 404 for any other member. */
    async invitationLink(accountId: string, id: string): Promise<InvitationLink> {
      const row = isUuid(id) ? await store.findInvitation(accountId, id) : undefined;
      if (!row || row.role === 'owner' || !row.inviteExpiresAt) throw Errors.invitationNotFound();
      return {
        id: row.id,
        email: row.email,
        role: row.role,
        inviteUrl: row.inviteTokenSealed ? `${publicUrl}/invite/${secretBox.open(row.inviteTokenSealed)}` : null,
        expiresAt: row.inviteExpiresAt.toISOString(),
        expired: row.inviteExpiresAt <= clock.now(),
      };
    },

    /**
     * A member's role (every session of theirs ends) and capacity (issue #44: nothing of their access changes); only
     * the fields named change, in one transaction with their audit event.
     */
    async update(accountId: string, id: string, body: { role?: 'admin' | 'agent'; capacity?: number | null }, audit: AuditContext): Promise<Member> {
      const member = await memberOf(accountId, id);
      if (body.role !== undefined && member.role === 'owner') throw Errors.ownerRoleFixed();
      const updated = await db.transaction(async (tx) => {
        const store = createMembersStore(tx);
        let row: MemberRow | undefined = member;
        if (body.role !== undefined) row = await store.setRole(accountId, id, body.role, clock.now());
        if (row && body.capacity !== undefined) row = await store.setCapacity(accountId, id, body.capacity, clock.now());
        if (!row) return undefined;
        if (row.role !== member.role) {
          await recordAudit(tx, audit, { accountId, kind: 'member.role_changed', target: { type: 'member', id, name: row.name }, changes: { role: [member.role, row.role] } });
        }
        if (row.capacity !== member.capacity) {
          await recordAudit(tx, audit, { accountId, kind: 'member.capacity_changed', target: { type: 'member', id, name: row.name }, changes: { capacity: [member.capacity, row.capacity] } });
        }
        return row;
      });
      if (!updated) throw Errors.memberNotFound();
      if (body.role !== undefined) memberChanged(id);
      return toMember(updated);
    },

    /** The operator's list: 404 for an unknown account. */
    async listOfAccount(accountId: string): Promise<{ members: Member[] }> {
      const rows = await store.list(accountId);
      if (rows.length === 0) throw Errors.accountNotFound();
      return { members: rows.map(toMember) };
    },

    /** The operator's removal, by member id alone. */
    async removeAnywhere(id: string, audit: AuditContext): Promise<{ success: true }> {
      const member = await store.findById(id);
      if (!member) throw Errors.memberNotFound();
      return remove(member.accountId, id, audit);
    },

  };
}

export type MembersService = ReturnType<typeof createMembersService>;
