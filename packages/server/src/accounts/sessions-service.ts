// A member's own sessions (issue #45, DESIGN "Security and privacy"): listed on Profile, ended one by one or all
// but the caller's. Ending one tells every process (memberChanged), so its token is a 401 everywhere at once.
import type { MemberSession } from '@parley/contracts';
import { Errors } from '../errors.ts';
import type { AuditContext, AuditRecorder } from '../audit/audit-record.ts';
import type { ConsoleAccount } from '../http/console/console-account.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid } from '../lib/ids.ts';
import type { MembersStore } from './members-store.ts';
import type { SessionsStore } from './sessions-store.ts';

export interface SessionsServiceDeps {
  store: Pick<SessionsStore, 'list'>;
  members: Pick<MembersStore, 'findById'>;
  clock: Clock;
  /** The member's sessions changed: every process forgets what it knows of them. */
  memberChanged: (memberId: string) => void;
  /** Runs an ending of sessions and its audit event in one database transaction. */
  transaction: <T>(change: (writes: SessionWrites) => Promise<T>) => Promise<T>;
}

/** What ending sessions writes through, over its transaction. */
export interface SessionWrites {
  store: Pick<SessionsStore, 'remove' | 'removeOthers'>;
  audit: AuditRecorder;
}

export function createSessionsService({ store, members, clock, memberChanged, transaction }: SessionsServiceDeps) {
  return {
    async list(caller: ConsoleAccount): Promise<{ sessions: MemberSession[] }> {
      const member = await members.findById(caller.memberId);
      if (!member) throw Errors.consoleUnauthorized();
      const rows = await store.list(caller.memberId, member.sessionVersion, clock.now());
      return {
        sessions: rows.map((row) => ({
          id: row.id,
          userAgent: row.userAgent,
          address: row.address,
          createdAt: row.createdAt.toISOString(),
          lastSeenAt: row.lastSeenAt.toISOString(),
          current: row.id === caller.sessionId,
        })),
      };
    },

    /** Another member's session, or one already ended, is not found (404). */
    async remove(caller: ConsoleAccount, id: string, context: AuditContext): Promise<void> {
      if (!isUuid(id)) throw Errors.sessionNotFound();
      await transaction(async (writes) => {
        if (!(await writes.store.remove(caller.memberId, id))) throw Errors.sessionNotFound();
        await writes.audit(context, { accountId: caller.accountId, kind: 'auth.session_ended', target: { type: 'session', id, name: caller.name } });
      });
      memberChanged(caller.memberId);
    },

    async removeOthers(caller: ConsoleAccount, context: AuditContext): Promise<void> {
      const ended = await transaction(async (writes) => {
        const count = await writes.store.removeOthers(caller.memberId, caller.sessionId);
        if (count > 0) {
          await writes.audit(context, {
            accountId: caller.accountId,
            kind: 'auth.session_ended',
            target: { type: 'session', id: null, name: caller.name },
            changes: { sessions: [count, 0] },
          });
        }
        return count;
      });
      if (ended > 0) memberChanged(caller.memberId);
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
