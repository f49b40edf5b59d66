import { Type, type Static } from 'typebox';
import { EMAIL_MAX, PASSWORD_MAX, PASSWORD_MIN } from '../admin/index.ts';
import { ErrorBody } from '../errors.ts';
import { MEMBER_ROLES, route } from '../route.ts';
import { object, stringEnum } from '../schema.ts';

const SessionMember = {
  email: Type.String(),
  memberId: Type.String(),
  name: Type.String(),
  role: stringEnum(MEMBER_ROLES),
  twoFactorSetupRequired: Type.Optional(
    Type.Literal(true, { description: 'the account requires two-factor sign-in: this session can only set it up (`/me/2fa/setup`, `/me/2fa/enable`)' }),
  ),
};
/** The member behind a web-account session. */
export const Session = object(SessionMember);
export type Session = Static<typeof Session>;
/** Whether a web-account session (or bearer token) is signed in, and as whom. */
export const SessionState = Type.Union([
  object({
    signedIn: Type.Literal(false),
    ended: Type.Optional(
      Type.Literal('removed', { description: "the credential was a member's who has been removed from the account (the web account says so)" }),
    ),
  }),
  object({ signedIn: Type.Literal(true), ...SessionMember }),
]);
export type SessionState = Static<typeof SessionState>;

/** TOTP codes are 6 digits; recovery codes `xxxxx-xxxxx` (spaces and dashes ignored). */
export const TWO_FACTOR_CODE = Type.String({ pattern: '^[0-9]{6}$', description: 'the 6-digit code of the authenticator app' });
export const RECOVERY_CODE = Type.String({ minLength: 1, maxLength: 40, description: 'one of the recovery codes given when two-factor sign-in was turned on' });

/** The password was right and the member signs in with a second factor: send the challenge with a code. */
export const TwoFactorChallenge = object({
  twoFactorRequired: Type.Literal(true),
  challenge: Type.String({ description: 'valid 5 minutes, for one sign-in; 5 wrong codes end it' }),
});
export type TwoFactorChallenge = Static<typeof TwoFactorChallenge>;

const SecondStepBody = object({
  challenge: Type.String({ minLength: 1, maxLength: 200 }),
  code: Type.Optional(TWO_FACTOR_CODE),
  recoveryCode: Type.Optional(RECOVERY_CODE),
});

export const authRoutes = {
  login: route({
    method: 'POST',
    url: '/auth/login',
    operationId: 'login',
    summary: 'Log in; the token goes in `Authorization: Bearer <token>` of every other console call',
    description:
      'Too many failed attempts for one e-mail lock it for a while (429). A member with two-factor sign-in on gets ' +
      '`{ twoFactorRequired: true, challenge }` instead of a token: send it with a code to `POST /auth/login/2fa`.',
    tags: ['Auth'],
    anonymous: true,
    schema: {
      body: object({
        email: Type.String({ minLength: 1, maxLength: EMAIL_MAX }),
        password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: Type.Union([object({ token: Type.String() }), TwoFactorChallenge]), 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
    },
  }),
  loginTwoFactor: route({
    method: 'POST',
    url: '/auth/login/2fa',
    operationId: 'loginTwoFactor',
    summary: "Log in, second step: the login's challenge with the authenticator's code or a recovery code gives the token",
    description:
      'Give exactly one of `code` and `recoveryCode`. 401 `Invalid two-factor code` for a wrong, used or reused code; ' +
      '401 `Sign-in expired; log in again` for an unknown, used or expired challenge (5 minutes). Limited like the login ' +
      '(429). A recovery code works once, ends the member\'s other sessions and is e-mailed to them.',
    tags: ['Auth'],
    anonymous: true,
    schema: { body: SecondStepBody, response: { 200: object({ token: Type.String() }), 400: ErrorBody, 401: ErrorBody, 429: ErrorBody } },
  }),
  createSession: route({
    method: 'POST',
    url: '/auth/session',
    operationId: 'createSession',
    summary: 'Log in the web account: sets an HttpOnly, SameSite=Strict session cookie (no token in the body)',
    description:
      'Calls authenticated by the cookie must send `X-Requested-With: parley` unless they are GET (CSRF protection); ' +
      'the same throttling as /auth/login applies. With two-factor sign-in on, no cookie is set: the answer is ' +
      '`{ twoFactorRequired: true, challenge }`, completed by `POST /auth/session/2fa`.',
    tags: ['Auth'],
    schema: {
      body: object({
        email: Type.String({ minLength: 1, maxLength: EMAIL_MAX }),
        password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: Type.Union([Session, TwoFactorChallenge]), 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
    },
  }),
  createSessionTwoFactor: route({
    method: 'POST',
    url: '/auth/session/2fa',
    operationId: 'createSessionTwoFactor',
    summary: 'Log in the web account, second step: sets the session cookie, like `POST /auth/login/2fa` gives a token',
    description: 'The same rules, errors and limits as `POST /auth/login/2fa`; the challenge must come from `POST /auth/session`.',
    tags: ['Auth'],
    schema: { body: SecondStepBody, response: { 200: Session, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody } },
  }),
  getSession: route({
    method: 'GET',
    url: '/auth/session',
    operationId: 'getSession',
    role: 'agent',
    twoFactorSetup: true,
    summary: 'Who is logged in (cookie or bearer token)',
    tags: ['Auth'],
    schema: { response: { 200: Session, 401: ErrorBody } },
  }),
  getSessionState: route({
    method: 'GET',
    url: '/auth/session/state',
    operationId: 'getSessionState',
    summary: 'Whether anyone is logged in (cookie or bearer token): always 200, `signedIn: false` without a valid credential',
    description:
      'The web account asks this on its first load, so a visitor who is not signed in causes no failed request; ' +
      '`GET /auth/session` answers 401 instead.',
    tags: ['Auth'],
    anonymous: true,
    schema: { response: { 200: SessionState } },
  }),
  deleteSession: route({
    method: 'DELETE',
    url: '/auth/session',
    operationId: 'deleteSession',
    role: 'agent',
    summary: 'Sign out: clears the session cookie and ends every token and session of the member, on every device',
    tags: ['Auth'],
    schema: { response: { 200: object({ success: Type.Literal(true) }) } },
  }),
  changePassword: route({
    method: 'PUT',
    url: '/auth/password',
    operationId: 'changePassword',
    role: 'agent',
    summary: "Change one's own password: every token and session of the member ends (sign in again with the new one)",
    description: '401 `Invalid e-mail or password` when `currentPassword` is wrong.',
    tags: ['Auth'],
    schema: {
      body: object({
        currentPassword: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
        newPassword: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: object({ success: Type.Literal(true) }), 400: ErrorBody, 401: ErrorBody },
    },
  }),
} as const;
