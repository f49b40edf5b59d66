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

export const authRoutes = {
  login: route({
    method: 'POST',
    url: '/auth/login',
    operationId: 'login',
    summary: 'Log in; the token goes in `Authorization: Bearer <token>` of every other console call',
    description: 'Too many failed attempts for one e-mail lock it for a while (429).',
    tags: ['Auth'],
    anonymous: true,
    schema: {
      body: object({
        email: Type.String({ minLength: 1, maxLength: EMAIL_MAX }),
        password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: object({ token: Type.String() }), 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
    },
  }),
  createSession: route({
    method: 'POST',
    url: '/auth/session',
    operationId: 'createSession',
    summary: 'Log in the web account: sets an HttpOnly, SameSite=Strict session cookie (no token in the body)',
    description:
      'Calls authenticated by the cookie must send `X-Requested-With: parley` unless they are GET (CSRF protection); ' +
      'the same throttling as /auth/login applies.',
    tags: ['Auth'],
    schema: {
      body: object({
        email: Type.String({ minLength: 1, maxLength: EMAIL_MAX }),
        password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: Session, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
    },
  }),
  getSession: route({
    method: 'GET',
    url: '/auth/session',
    operationId: 'getSession',
    role: 'agent',
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
