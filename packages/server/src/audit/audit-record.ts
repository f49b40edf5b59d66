// The audit log's recording API (issue #45, item 4): what every feature calls, inside the transaction of the change it
// makes, so a refused or rolled-back request writes nothing. It imports only the database and lib/; features import
// it (audit/ sits low in the folders' layers, under every feature that records).
import { auditEvents } from '../db/schema.ts';
import type { Executor } from '../db/client.ts';
import { newId } from '../lib/ids.ts';

/** What a secret field's value shows in the log (before and after), never the value. */
export const MASK = '••••';

/** Who made a change: a member of the account, one of its API keys, or the operator (admin API or CLI). */
export type AuditActorKind = 'member' | 'api_key' | 'operator';

export interface AuditActor {
  kind: AuditActorKind;
  id: string | null;
  name: string;
}

/** Who and from which address: the route makes it (auditContextOf), the service passes it to recordAudit. */
export interface AuditContext {
  actor: AuditActor;
  address: string | null;
}

/** The operator's changes (the admin API, the admin CLI): no member, the address of the request if any. */
export function operatorContext(address: string | null = null): AuditContext {
  return { actor: { kind: 'operator', id: null, name: 'operator' }, address };
}

/** A member's own change (a sign-in, their sessions, their two-factor sign-in). */
export function memberContext(member: { id: string; name: string }, address: string | null): AuditContext {
  return { actor: { kind: 'member', id: member.id, name: member.name }, address };
}

/**
 * Records an event: over the database in a statement of its own, for the events that are not a change of a row (a
 * sign-in, a failed sign-in, an export, written right after); over a transaction (`auditRecorderOf(tx)`), with the
 * change it records.
 */
export type AuditRecorder = (context: AuditContext, entry: AuditEntry) => Promise<void>;

/** The kinds of events, stable dotted names (docs/architecture.md, "The audit log", lists them). */
export const AUDIT_KINDS = [
  'account.settings_updated',
  'alerts.updated',
  'api_key.created',
  'api_key.revoked',
  'channel.created',
  'channel.updated',
  'channel.deleted',
  'knowledge_base.created',
  'knowledge_base.updated',
  'knowledge_base.deleted',
  'knowledge_entry.created',
  'knowledge_entry.updated',
  'knowledge_entry.deleted',
  'document.added',
  'document.deleted',
  'action.created',
  'action.updated',
  'action.deleted',
  'member.invited',
  'member.joined',
  'member.updated',
  'member.role_changed',
  'member.capacity_changed',
  'member.removed',
  'invitation.revoked',
  'invitation.accepted',
  'customer.exported',
  'customer.erased',
  'auth.login',
  'auth.login_failed',
  'auth.two_factor_enabled',
  'auth.two_factor_disabled',
  'auth.recovery_code_used',
  'auth.session_ended',
  'sso.updated',
  'assignment.updated',
  'team_hours.updated',
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export type AuditChanges = Record<string, [unknown, unknown]>;

export interface AuditEntry {
  accountId: string;
  kind: AuditKind;
  target: { type: string; id: string | null; name: string | null };
  /** `{ field: [before, after] }` of the changed fields (diffChanges); `{}` when the event is the whole story. */
  changes?: AuditChanges;
}

/** Writes one event with `db`: the transaction of the change it records (or the statement's own, for a sign-in). */
export async function recordAudit(db: Executor, context: AuditContext, entry: AuditEntry): Promise<void> {
  await db.insert(auditEvents).values({
    id: newId(),
    accountId: entry.accountId,
    actorKind: context.actor.kind,
    actorId: context.actor.id,
    actorName: context.actor.name,
    address: context.address,
    kind: entry.kind,
    targetType: entry.target.type,
    targetId: entry.target.id,
    targetName: entry.target.name,
    changes: entry.changes ?? {},
  });
}

/** An `AuditRecorder` over `db` (the database, or the transaction of the change the events belong to). */
export const auditRecorderOf =
  (db: Executor): AuditRecorder =>
  (context, entry) =>
    recordAudit(db, context, entry);

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const maskOf = (value: unknown) => (value === null || value === undefined || value === '' ? (value ?? null) : MASK);

/**
 * The changed fields of `before` → `after` (missing is null): only `fields` when given, else every key of either;
 * fields named in `secrets` show "••••" for a value (null stays null: set or cleared is what the log tells).
 * `before` undefined: a creation (every field of `after` that is set).
 */
export function diffChanges(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
  options: { fields?: readonly string[]; secrets?: readonly string[] } = {},
): AuditChanges {
  const secrets = new Set(options.secrets ?? []);
  const keys = options.fields ?? [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const changes: AuditChanges = {};
  for (const key of keys) {
    const was = before?.[key] ?? null;
    const now = after?.[key] ?? null;
    if (same(was, now)) continue;
    if (secrets.has(key)) {
      // A secret replaced by another shows as changed even though both read "••••".
      changes[key] = [maskOf(was), maskOf(now)];
    } else {
      changes[key] = [was, now];
    }
  }
  return changes;
}
