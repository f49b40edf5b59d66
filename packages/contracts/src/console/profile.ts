// Alerts and follow-through (issue #33): each member's own settings and password, forgotten passwords, and the
// account's alert webhook (a chat-tool message on every handoff).
import { Type, type Static } from 'typebox';
import { EMAIL_MAX, PASSWORD_MAX, PASSWORD_MIN } from '../admin/index.ts';
import { ErrorBody } from '../errors.ts';
import { MEMBER_ROLES, route } from '../route.ts';
import { nullable, object, stringEnum } from '../schema.ts';
import { ConsoleErrors } from './common.ts';
import { MEMBER_NAME_MAX } from './members.ts';

/** `handoffs`: every chat handed to the team while no member is online; `mine`: also customer messages in my chats. */
export const EMAIL_ALERTS = ['off', 'handoffs', 'mine'] as const;
export type EmailAlerts = (typeof EMAIL_ALERTS)[number];

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
});
export type Profile = Static<typeof Profile>;

export const UpdateProfileBody = object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: MEMBER_NAME_MAX, pattern: '\\S', description: 'not blank' })),
  language: Type.Optional(Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$' })),
  notifications: Type.Optional(
    object({ email: Type.Optional(stringEnum(EMAIL_ALERTS)), browser: Type.Optional(Type.Boolean()) }),
  ),
});
export type UpdateProfileBody = Static<typeof UpdateProfileBody>;

export const AlertSettings = object({
  alertWebhookUrl: nullable(
    Type.String({ description: 'an incoming-webhook URL of the team chat tool (Slack, Mattermost, Teams): every handoff is posted there' }),
  ),
});
export type AlertSettings = Static<typeof AlertSettings>;

const Success = object({ success: Type.Literal(true) });

export const profileRoutes = {
  getMe: route({
    method: 'GET',
    url: '/me/',
    operationId: 'getMe',
    role: 'agent',
    summary: "The signed-in member's own settings",
    tags: ['Profile'],
    schema: { response: { 200: Profile, 401: ErrorBody } },
  }),
  updateMe: route({
    method: 'PUT',
    url: '/me/',
    operationId: 'updateMe',
    role: 'agent',
    summary: "Change one's own name, language or alerts: only the fields named change",
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
  forgotPassword: route({
    method: 'POST',
    url: '/auth/forgot-password',
    operationId: 'forgotPassword',
    summary: 'E-mail a one-time link (`{PUBLIC_URL}/reset-password/<token>`, valid 1 hour) to reset a forgotten password',
    description: 'Always 202, whether or not the e-mail is a member (no account enumeration); needs SMTP_URL.',
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
    description: '400 for a used, unknown or expired link.',
    tags: ['Auth'],
    anonymous: true,
    schema: {
      body: object({
        token: Type.String({ minLength: 1, maxLength: 200 }),
        password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: object({ token: Type.String() }), 400: ErrorBody, 429: ErrorBody },
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
