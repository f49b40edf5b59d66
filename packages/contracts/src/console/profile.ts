// Alerts and follow-through (issue #33): each member's own settings and password, forgotten passwords, and the
// account's alert webhook (a chat-tool message on every handoff).
import { Type, type Static } from 'typebox';
import { EMAIL_MAX, PASSWORD_MAX, PASSWORD_MIN } from '../admin/index.ts';
import { ErrorBody } from '../errors.ts';
import { MEMBER_ROLES, route } from '../route.ts';
import { nullable, object, stringEnum } from '../schema.ts';
import { ConsoleErrors } from './common.ts';
import { MEMBER_NAME_MAX } from './members.ts';
import { TWO_FACTOR_CODE, TwoFactorChallenge } from './auth.ts';

/** `handoffs`: every chat handed to the team while no member is online; `mine`: also customer messages in my chats. */
export const EMAIL_ALERTS = ['off', 'handoffs', 'mine'] as const;
export type EmailAlerts = (typeof EMAIL_ALERTS)[number];

/** Whether auto-assignment gives the member chats (issue #44). */
export const AVAILABILITIES = ['available', 'away'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

const Notifications = object({
  email: stringEnum(EMAIL_ALERTS, {
    description: 'e-mail alerts (default `handoffs` for the owner and admins, `mine` for agents)',
  }),
  browser: Type.Boolean({ description: 'browser notifications and a sound in the web account (default true)' }),
});

export const Profile = object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: stringEnum(MEMBER_ROLES),
  language: Type.String({ description: 'the language of the web account (e.g. `en`)' }),
  notifications: Notifications,
  twoFactor: Type.Boolean({ description: 'two-factor sign-in is on (issue #45)' }),
  availability: stringEnum(AVAILABILITIES, { description: 'auto-assignment gives chats to `available` members (default `available`)' }),
  awayWhenOffline: Type.Boolean({
    description: 'the member becomes `away` when their last web-account tab closes (default false)',
  }),
});
export type Profile = Static<typeof Profile>;

export const UpdateProfileBody = object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: MEMBER_NAME_MAX, pattern: '\\S', description: 'not blank' })),
  language: Type.Optional(Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$' })),
  notifications: Type.Optional(
    object({ email: Type.Optional(stringEnum(EMAIL_ALERTS)), browser: Type.Optional(Type.Boolean()) }),
  ),
  availability: Type.Optional(stringEnum(AVAILABILITIES)),
  awayWhenOffline: Type.Optional(Type.Boolean()),
});
export type UpdateProfileBody = Static<typeof UpdateProfileBody>;

export const AlertSettings = object({
  alertWebhookUrl: nullable(
    Type.String({ description: 'an incoming-webhook URL of the team chat tool (Slack, Mattermost, Teams): every handoff is posted there' }),
  ),
});
export type AlertSettings = Static<typeof AlertSettings>;

const Success = object({ success: Type.Literal(true) });

/** One sign-in of the member (issue #45): a web-account cookie or a bearer token. */
export const MemberSession = object({
  id: Type.String(),
  userAgent: Type.String({ description: "the browser or client that signed in (its User-Agent; empty when it sent none)" }),
  address: Type.String({ description: 'the address it signed in from' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastSeenAt: Type.String({ format: 'date-time', description: 'its last request, to the minute' }),
  current: Type.Boolean({ description: 'the session of this request' }),
});
export type MemberSession = Static<typeof MemberSession>;

/** What this server offers whoever asks, signed in or not (the sign-in page reads it). */
export const ServerInfo = object({
  emailConfigured: Type.Boolean({
    description: 'SMTP_URL is set: invitations, forgotten-password links and alerts are e-mailed; else none is sent (the operator resets passwords)',
  }),
});
export type ServerInfo = Static<typeof ServerInfo>;

export const profileRoutes = {
  getMe: route({
    method: 'GET',
    url: '/me/',
    operationId: 'getMe',
    role: 'agent',
    twoFactorSetup: true,
    summary: "The signed-in member's own settings",
    tags: ['Profile'],
    schema: { response: { 200: Profile, 401: ErrorBody } },
  }),
  updateMe: route({
    method: 'PUT',
    url: '/me/',
    operationId: 'updateMe',
    role: 'agent',
    summary: "Change one's own name, language, alerts or availability: only the fields named change",
    tags: ['Profile'],
    schema: { body: UpdateProfileBody, response: { 200: Profile, 400: ErrorBody, 401: ErrorBody } },
  }),
  changeMyPassword: route({
    method: 'PUT',
    url: '/me/password',
    operationId: 'changeMyPassword',
    role: 'agent',
    summary: "Change one's own password: the member's other sessions and tokens end, the one that made the change stays signed in",
    description:
      '400 `Wrong password` when `currentPassword` is wrong. A web-account session gets a new session cookie; a bearer ' +
      'token caller gets its new token in `token`.',
    tags: ['Profile'],
    schema: {
      body: object({
        currentPassword: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
        newPassword: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: object({ success: Type.Literal(true), token: Type.Optional(Type.String()) }), 400: ErrorBody, 401: ErrorBody },
    },
  }),
  listMySessions: route({
    method: 'GET',
    url: '/me/sessions',
    operationId: 'listMySessions',
    role: 'agent',
    summary: "The member's live sessions (each sign-in), the most recently used first; the caller's is `current`",
    description: 'A password change, a reset, a role change, signing out or removal ends them all.',
    tags: ['Profile'],
    schema: { response: { 200: object({ sessions: Type.Array(MemberSession) }), 401: ErrorBody } },
  }),
  deleteMySession: route({
    method: 'DELETE',
    url: '/me/sessions/:id',
    operationId: 'deleteMySession',
    role: 'agent',
    summary: "End one of the member's sessions: its token or cookie gets 401 on its next request",
    description: '404 `Session not found` when the member has no live session of that id.',
    tags: ['Profile'],
    schema: { params: object({ id: Type.String({ maxLength: 100 }) }), response: { 200: Success, 401: ErrorBody, 404: ErrorBody } },
  }),
  deleteMyOtherSessions: route({
    method: 'DELETE',
    url: '/me/sessions',
    operationId: 'deleteMyOtherSessions',
    role: 'agent',
    summary: "End every session of the member but the caller's (sign out everywhere else)",
    tags: ['Profile'],
    schema: { response: { 200: Success, 401: ErrorBody } },
  }),
  setupTwoFactor: route({
    method: 'POST',
    url: '/me/2fa/setup',
    operationId: 'setupTwoFactor',
    role: 'agent',
    twoFactorSetup: true,
    summary: 'Start turning two-factor sign-in on: a new TOTP secret (and its otpauth:// URL for a QR code), confirmed by `/me/2fa/enable`',
    description: '409 `Two-factor sign-in is already on` when it is. A new setup replaces one not confirmed yet.',
    tags: ['Profile'],
    schema: {
      response: {
        200: object({ secret: Type.String({ description: 'base32' }), otpauthUrl: Type.String() }),
        401: ErrorBody,
        409: ErrorBody,
      },
    },
  }),
  enableTwoFactor: route({
    method: 'POST',
    url: '/me/2fa/enable',
    operationId: 'enableTwoFactor',
    role: 'agent',
    twoFactorSetup: true,
    summary: 'Turn two-factor sign-in on with a code of the secret set up: 10 one-time recovery codes (shown this once)',
    description:
      "400 `Invalid two-factor code` for a wrong code; 409 `Set up two-factor sign-in first` without a setup, " +
      "`Two-factor sign-in is already on` when it is. The member's other sessions end and the change is e-mailed to them.",
    tags: ['Profile'],
    schema: {
      body: object({ code: TWO_FACTOR_CODE }),
      response: { 200: object({ recoveryCodes: Type.Array(Type.String(), { minItems: 10, maxItems: 10 }) }), 400: ErrorBody, 401: ErrorBody, 409: ErrorBody },
    },
  }),
  disableTwoFactor: route({
    method: 'POST',
    url: '/me/2fa/disable',
    operationId: 'disableTwoFactor',
    role: 'agent',
    summary: 'Turn two-factor sign-in off (the password and a current code)',
    description:
      "400 `Wrong password`, or `Invalid two-factor code`; 409 `Two-factor sign-in is off` when it is. The member's " +
      'other sessions end and the change is e-mailed to them.',
    tags: ['Profile'],
    schema: {
      body: object({ password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }), code: TWO_FACTOR_CODE }),
      response: { 200: Success, 400: ErrorBody, 401: ErrorBody, 409: ErrorBody },
    },
  }),
  getServerInfo: route({
    method: 'GET',
    url: '/server/',
    operationId: 'getServerInfo',
    summary: 'What this server offers: whether it sends e-mail (SMTP configured)',
    description: 'No credential needed: the sign-in page and `Forgot password?` read it.',
    tags: ['Auth'],
    anonymous: true,
    schema: { response: { 200: ServerInfo } },
  }),
  forgotPassword: route({
    method: 'POST',
    url: '/auth/forgot-password',
    operationId: 'forgotPassword',
    summary: 'E-mail a one-time link (`{PUBLIC_URL}/reset-password/<token>`, valid 1 hour) to reset a forgotten password',
    description:
      'Always 202, whether or not the e-mail is a member (no account enumeration); needs SMTP_URL (without it nothing is sent and no link is made: the operator makes one with `reset-password --email`).',
    tags: ['Auth'],
    anonymous: true,
    schema: {
      body: object({ email: Type.String({ minLength: 1, maxLength: EMAIL_MAX }) }),
      response: { 202: Success, 400: ErrorBody, 429: ErrorBody },
    },
  }),
  resetPassword: route({
    method: 'POST',
    url: '/auth/reset-password',
    operationId: 'resetPassword',
    summary: "Set a new password with a forgotten-password link's token: every session ends and the member is signed in",
    description:
      '400 for a used, unknown or expired link. The sign-in is a login with the new password: a member with two-factor ' +
      'sign-in gets its challenge (`POST /auth/login/2fa` with a code gives the token), one whose account requires it a ' +
      'token that can only set it up; 403 when password sign-in is off for the account (single sign-on), the password set all the same.',
    tags: ['Auth'],
    anonymous: true,
    schema: {
      body: object({
        token: Type.String({ minLength: 1, maxLength: 200 }),
        password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: Type.Union([object({ token: Type.String() }), TwoFactorChallenge]), 400: ErrorBody, 403: ErrorBody, 429: ErrorBody },
    },
  }),
  getAlertSettings: route({
    method: 'GET',
    url: '/account/alerts/',
    operationId: 'getAlertSettings',
    role: 'admin',
    summary: "The account's alert webhook",
    tags: ['Alerts'],
    schema: { response: { 200: AlertSettings, ...ConsoleErrors } },
  }),
  updateAlertSettings: route({
    method: 'PUT',
    url: '/account/alerts/',
    operationId: 'updateAlertSettings',
    role: 'admin',
    summary: 'Set or clear the alert webhook: on each handoff a POST of `{ text, chat, reason, url }` (3 attempts)',
    description: 'The URL must be http(s) and, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS, not a private address.',
    tags: ['Alerts'],
    schema: {
      body: object({ alertWebhookUrl: nullable(Type.String({ minLength: 1, maxLength: 2000, description: 'http or https URL' })) }),
      response: { 200: AlertSettings, ...ConsoleErrors },
    },
  }),
} as const;
