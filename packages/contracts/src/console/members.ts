// The team of an account (issue #25): members with roles, invitations by link, and the acceptance that signs the
// new member in.
import { Type, type Static } from 'typebox';
import { EMAIL_MAX, PASSWORD_MAX, PASSWORD_MIN } from '../admin/index.ts';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum } from '../schema.ts';
import { ConsoleErrors } from './common.ts';

export const MEMBER_NAME_MAX = 100;
/** Roles an invitation or a role change may give: there is one owner, the account's first login. */
export const GRANTABLE_ROLES = ['admin', 'agent'] as const;

export const Member = object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: stringEnum(['owner', 'admin', 'agent'] as const),
  status: stringEnum(['active', 'invited'] as const, { description: '`invited`: the invitation is not accepted yet' }),
  capacity: nullable(
    Type.Integer({ minimum: 1, maximum: 100, description: "open assigned chats auto-assignment gives this member; null: the account's capacity" }),
  ),
});
export type Member = Static<typeof Member>;

export const Invitation = object({
  id: Type.String(),
  email: Type.String(),
  role: stringEnum(GRANTABLE_ROLES),
  status: Type.Literal('invited'),
  inviteUrl: Type.String({
    description: '`{PUBLIC_URL}/invite/<token>`, valid 7 days, usable once; e-mailed when SMTP is configured, and shown here (again, while pending: GET /members/{id}/invitation/)',
  }),
  emailed: Type.Boolean({ description: 'the link was e-mailed (SMTP configured and the server took it); else pass it on yourself' }),
});
export type Invitation = Static<typeof Invitation>;

/** A pending invitation's link, to show and copy again (issue #42, item 11). */
export const InvitationLink = object({
  id: Type.String(),
  email: Type.String(),
  role: stringEnum(GRANTABLE_ROLES),
  inviteUrl: nullable(
    Type.String({ description: 'the link as sent; null for an invitation made before links were kept (invite the e-mail again for a new one)' }),
  ),
  expiresAt: Type.String({ description: 'ISO 8601 UTC; 7 days after the invitation was sent or last renewed' }),
  expired: Type.Boolean({ description: 'the link no longer works: invite the e-mail again for a new one' }),
});
export type InvitationLink = Static<typeof InvitationLink>;

const MemberParams = object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const MemberName = Type.String({ minLength: 1, maxLength: MEMBER_NAME_MAX });

export const memberRoutes = {
  listMembers: route({
    method: 'GET',
    url: '/members/',
    operationId: 'listMembers',
    role: 'agent',
    summary: 'The members of the account, invited ones included (owner first, then by name)',
    tags: ['Team'],
    schema: { response: { 200: object({ members: Type.Array(Member) }), 401: ErrorBody } },
  }),
  inviteMember: route({
    method: 'POST',
    url: '/members/invite/',
    operationId: 'inviteMember',
    role: 'admin',
    summary: 'Invite a teammate: a single-use link valid 7 days (inviting an invited e-mail again renews the link)',
    description: '409 when the e-mail is a member (of this or another account) already.',
    tags: ['Team'],
    schema: {
      body: object({
        email: Type.String({ format: 'email', maxLength: EMAIL_MAX }),
        name: Type.Optional(MemberName),
        role: stringEnum(GRANTABLE_ROLES),
      }),
      response: { 201: Invitation, 409: ErrorBody, ...ConsoleErrors },
    },
  }),
  getInvitationLink: route({
    method: 'GET',
    url: '/members/:id/invitation/',
    operationId: 'getInvitationLink',
    role: 'admin',
    summary: "A pending invitation's link, to show and copy it again (the same link until it is renewed by inviting again)",
    description: '404 `Invitation not found` for a member who accepted theirs, or another account\'s member.',
    tags: ['Team'],
    schema: { params: MemberParams, response: { 200: InvitationLink, ...ConsoleErrors } },
  }),
  updateMember: route({
    method: 'PUT',
    url: '/members/:id/',
    operationId: 'updateMember',
    role: 'admin',
    summary: "Change a member's role (every session of theirs ends: they sign in again) or capacity: only the fields named change",
    description: "400 `The owner's role cannot change` for the owner.",
    tags: ['Team'],
    schema: {
      params: MemberParams,
      body: object({ role: Type.Optional(stringEnum(GRANTABLE_ROLES)), capacity: Type.Optional(Member.properties.capacity) }),
      response: { 200: Member, ...ConsoleErrors },
    },
  }),
  removeMember: route({
    method: 'DELETE',
    url: '/members/:id/',
    operationId: 'removeMember',
    role: 'admin',
    summary: 'Remove a member (or withdraw an invitation): every token and session of theirs stops working at once',
    description: '400 for the owner: an account always keeps its owner.',
    tags: ['Team'],
    schema: { params: MemberParams, response: { 200: object({ success: Type.Literal(true) }), ...ConsoleErrors } },
  }),
  acceptInvitation: route({
    method: 'POST',
    url: '/auth/accept-invite',
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation: sets the name and password and signs the new member in (a console token)',
    description:
      'The web account then starts a session with the same e-mail and password. 400 for a used, unknown or expired invitation; ' +
      '403 when password sign-in is off for the account (the invitation stays, for single sign-on). An account that requires ' +
      'two-factor sign-in gives a token that can only set it up.',
    tags: ['Auth'],
    anonymous: true,
    schema: {
      body: object({
        token: Type.String({ minLength: 1, maxLength: 200 }),
        name: MemberName,
        password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: object({ token: Type.String(), email: Type.String() }), 400: ErrorBody, 403: ErrorBody, 429: ErrorBody },
    },
  }),
} as const;
