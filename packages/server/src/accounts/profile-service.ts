// Each member's own settings and password (issue #33, Alerts and follow-through): GET/PUT /me/, the password
// change that keeps its caller signed in, and forgotten passwords by a one-time link e-mailed through SMTP_URL.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { EmailAlerts, Profile, ServerInfo, UpdateProfileBody } from '@parley/contracts';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { hashPassword, sha256Hex, verifyPassword } from '../lib/secrets.ts';
import { normalizeEmail } from './accounts-service.ts';
import type { ConsoleAccount, SignInClient, TwoFactorChallenge } from '../http/console/console-account.ts';
import type { ConsoleAuth } from './console-auth.ts';
import type { InvitationMailer } from '../kernel/mailer.ts';
import type { MemberRole, MembersStore, ProfileRow } from './members-store.ts';

/** A forgotten-password link works once, for an hour. */
export const RESET_TTL_MS = 60 * 60_000;

/** The e-mail alerts of a member who chose none: `handoffs` for the owner and admins, `mine` for agents. */
export function defaultEmailAlerts(role: MemberRole): EmailAlerts {
  return role === 'agent' ? 'mine' : 'handoffs';
}

function toProfile(row: ProfileRow): Profile {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    language: row.language,
    notifications: { email: row.notifyEmail ?? defaultEmailAlerts(row.role), browser: row.notifyBrowser },
    twoFactor: row.twoFactor,
    availability: row.availability,
    awayWhenOffline: row.awayWhenOffline,
  };
}

export interface ProfileServiceDeps {
  store: Pick<MembersStore, 'profileOf' | 'updateProfile' | 'passwordHashOf' | 'replacePassword' | 'setResetToken' | 'resetPassword'>;
  auth: Pick<ConsoleAuth, 'renew' | 'signIn'>;
  clock: Clock;
  mailer: Pick<InvitationMailer, 'sendText' | 'configured'>;
  /** PUBLIC_URL: reset links are `{publicUrl}/reset-password/<token>`. */
  publicUrl: string;
  /** The member's sessions ended (password): every process forgets them, their live streams end. */
  memberChanged: (memberId: string) => void;
  /** The member's name changed: every process forgets the name it holds; nothing of their access changed. */
  memberRenamed: (memberId: string) => void;
  logger: FastifyBaseLogger;
}

export function createProfileService({ store, auth, clock, mailer, publicUrl, memberChanged, memberRenamed, logger }: ProfileServiceDeps) {
  async function profileOf(memberId: string): Promise<ProfileRow> {
    const row = await store.profileOf(memberId);
    if (!row) throw Errors.consoleUnauthorized();
    return row;
  }

  /** A new one-time link for an active member of that e-mail (the previous one stops working); undefined: none such. */
  async function newResetLink(email: string) {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(clock.now().getTime() + RESET_TTL_MS);
    const member = await store.setResetToken(normalizeEmail(email), sha256Hex(token), expiresAt);
    return member ? { member, link: `${publicUrl}/reset-password/${token}`, expiresAt } : undefined;
  }

  return {
    /** Whether this server sends e-mail: the sign-in page and Profile say what happens without it. */
    serverInfo(): ServerInfo {
      return { emailConfigured: mailer.configured };
    },

    async get(member: ConsoleAccount): Promise<Profile> {
      return toProfile(await profileOf(member.memberId));
    },

    /** Changes only the fields named. */
    async update(member: ConsoleAccount, body: UpdateProfileBody): Promise<Profile> {
      const name = body.name?.trim();
      const row = await store.updateProfile(
        member.memberId,
        {
          ...(name ? { name } : {}),
          ...(body.language !== undefined ? { language: body.language } : {}),
          ...(body.notifications?.email !== undefined ? { notifyEmail: body.notifications.email } : {}),
          ...(body.notifications?.browser !== undefined ? { notifyBrowser: body.notifications.browser } : {}),
          // Becoming available queues an assignment run (the members trigger of migration 0040).
          ...(body.availability !== undefined ? { availability: body.availability } : {}),
          ...(body.awayWhenOffline !== undefined ? { awayWhenOffline: body.awayWhenOffline } : {}),
        },
        clock.now(),
      );
      if (!row) throw Errors.consoleUnauthorized();
      // The name is part of what every process caches of a signed-in member (a team reply's senderName).
      if (name) memberRenamed(member.memberId);
      return toProfile(row);
    },

    /**
     * A new password, the current one checked (400 `Wrong password`): every other token and session of the member
     * ends; the caller gets a new token and session token to stay signed in.
     */
    async changePassword(member: ConsoleAccount, input: { currentPassword: string; newPassword: string }) {
      const current = await store.passwordHashOf(member.memberId);
      if (!current || !(await verifyPassword(input.currentPassword, current))) throw Errors.wrongPassword();
      const updated = await store.replacePassword(member.memberId, await hashPassword(input.newPassword), clock.now());
      if (!updated) throw Errors.consoleUnauthorized();
      // The caller's session follows the new version before the other processes hear of the change: the notice
      // closes the member's live streams, and the caller's would otherwise reconnect to a session not yet carried over.
      const renewed = await auth.renew(updated, member.sessionId);
      memberChanged(member.memberId);
      return renewed;
    },

    /**
     * E-mails a one-time link to an active member of that e-mail; says nothing either way (always 202), and the
     * e-mail goes out after the answer, so neither the answer nor its time tells whether the e-mail is a member.
     * Without SMTP nothing is made: a link no one receives would only replace one the operator handed out.
     */
    async forgotPassword(input: { email: string }): Promise<void> {
      if (!mailer.configured) return;
      const made = await newResetLink(input.email);
      if (!made) return;
      const { member, link } = made;
      void mailer
        .sendText(
          {
            to: member.email,
            subject: 'Reset your Parley password',
            text:
              `Someone (we hope you) asked to reset the password of ${member.email} on Parley.\n\n` +
              `Choose a new password (the link works once, for one hour):\n${link}\n\n` +
              'If you did not ask for this, ignore this e-mail: your password stays as it is.\n',
          },
          'a password reset',
        )
        .catch((error: unknown) => logger.warn({ err: error }, 'sending a password reset e-mail failed'));
    },

    /** The operator's link for a member (`reset-password --email`): 404 when no active member has the e-mail. */
    async operatorResetLink(email: string): Promise<{ memberId: string; email: string; resetUrl: string; expiresAt: string }> {
      const made = await newResetLink(email);
      if (!made) throw Errors.memberNotFound();
      return { memberId: made.member.id, email: made.member.email, resetUrl: made.link, expiresAt: made.expiresAt.toISOString() };
    },

    /**
     * Sets the password with a link's token (once, within the hour): every session ends, and the member signs in as
     * with a login (the second factor's challenge when they have one).
     */
    async resetPassword(input: { token: string; password: string }, client: SignInClient): Promise<{ token: string } | TwoFactorChallenge> {
      const passwordHash = await hashPassword(input.password);
      const member = await store.resetPassword(sha256Hex(input.token), passwordHash, clock.now());
      if (!member) throw Errors.resetLinkInvalid();
      memberChanged(member.id);
      return auth.signIn(member, client);
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
