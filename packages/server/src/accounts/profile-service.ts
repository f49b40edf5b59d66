// Each member's own settings and password (issue #33, Alerts and follow-through): GET/PUT /me/, the password
// change that keeps its caller signed in, and forgotten passwords by a one-time link e-mailed through SMTP_URL.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { EmailAlerts, Profile, UpdateProfileBody } from '@parley/contracts';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { hashPassword, sha256Hex, verifyPassword } from '../lib/secrets.ts';
import { normalizeEmail } from './accounts-service.ts';
import type { ConsoleAccount, ConsoleAuth } from './console-auth.ts';
import type { InvitationMailer } from './invitation-mailer.ts';
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
  };
}

export interface ProfileServiceDeps {
  store: Pick<MembersStore, 'profileOf' | 'updateProfile' | 'passwordHashOf' | 'replacePassword' | 'setResetToken' | 'resetPassword'>;
  auth: Pick<ConsoleAuth, 'tokensFor'>;
  clock: Clock;
  mailer: Pick<InvitationMailer, 'sendText'>;
  /** PUBLIC_URL: reset links are `{publicUrl}/reset-password/<token>`. */
  publicUrl: string;
  memberChanged: (memberId: string) => void;
  logger: FastifyBaseLogger;
}

export function createProfileService({ store, auth, clock, mailer, publicUrl, memberChanged, logger }: ProfileServiceDeps) {
  async function profileOf(memberId: string): Promise<ProfileRow> {
    const row = await store.profileOf(memberId);
    if (!row) throw Errors.consoleUnauthorized();
    return row;
  }

  return {
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
        },
        clock.now(),
      );
      if (!row) throw Errors.consoleUnauthorized();
      // The name is part of what every process caches of a signed-in member (a team reply's senderName).
      if (name) memberChanged(member.memberId);
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
      memberChanged(member.memberId);
      return auth.tokensFor(updated);
    },

    /**
     * E-mails a one-time link to an active member of that e-mail; says nothing either way (always 202), and the
     * e-mail goes out after the answer, so neither the answer nor its time tells whether the e-mail is a member.
     */
    async forgotPassword(input: { email: string }): Promise<void> {
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(clock.now().getTime() + RESET_TTL_MS);
      const member = await store.setResetToken(normalizeEmail(input.email), sha256Hex(token), expiresAt);
      if (!member) return;
      const link = `${publicUrl}/reset-password/${token}`;
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

    /** Sets the password with a link's token (once, within the hour): every session ends, the member is signed in. */
    async resetPassword(input: { token: string; password: string }): Promise<{ token: string }> {
      const passwordHash = await hashPassword(input.password);
      const member = await store.resetPassword(sha256Hex(input.token), passwordHash, clock.now());
      if (!member) throw Errors.resetLinkInvalid();
      memberChanged(member.id);
      return { token: auth.tokensFor(member).token };
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
