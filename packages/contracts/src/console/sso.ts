// Single sign-on with OpenID Connect (issue #45, item 2): the owner names the account's provider; members sign in at
// `/login/<slug>` (or by their e-mail's domain) through it. The client secret is write-only.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum } from '../schema.ts';

export const SSO_ROLES = ['admin', 'agent'] as const;
export const SSO_DOMAINS_MAX = 20;

const Domain = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$',
  description: 'an e-mail domain, e.g. `example.com` (stored lower-cased)',
});

const SsoFields = {
  issuer: nullable(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        "the provider's issuer URL (its `/.well-known/openid-configuration` is read): https (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true); null: single sign-on is off",
    }),
  ),
  clientId: nullable(Type.String({ minLength: 1, maxLength: 500, description: 'the client id Parley has at the provider' })),
  buttonName: Type.String({ minLength: 1, maxLength: 60, description: 'the login page shows `Sign in with <buttonName>` (default `SSO`)' }),
  allowedDomains: Type.Array(Domain, {
    maxItems: SSO_DOMAINS_MAX,
    description: 'an unknown e-mail of these domains joins the account with `defaultRole`; the login page offers the button for them',
  }),
  defaultRole: stringEnum(SSO_ROLES, { description: 'the role of a member who joins by an allowed domain (default `agent`)' }),
  passwordLogin: Type.Boolean({ description: 'false: members other than the owner cannot sign in by password (default true)' }),
};

/** The account's single sign-on (the secret never shown: `clientSecretSet` says whether there is one). */
export const SsoSettings = object({
  ...SsoFields,
  clientSecretSet: Type.Boolean({ description: 'a client secret is saved (it is never shown)' }),
  slug: Type.String({ description: "the account's part of its sign-in page's address (read-only)" }),
  loginUrl: Type.String({ description: '`{PUBLIC_URL}/login/<slug>`: the page with the button (read-only)' }),
  redirectUri: Type.String({ description: '`{PUBLIC_URL}/console/v1/auth/sso/callback`: register it at the provider (read-only)' }),
});
export type SsoSettings = Static<typeof SsoSettings>;

/** The button a login page may show: its name and where it starts. */
export const SsoDiscovery = object({
  sso: nullable(
    object({
      buttonName: Type.String(),
      startUrl: Type.String({ description: '`/console/v1/auth/sso/start?account=<slug>`' }),
    }),
  ),
});
export type SsoDiscovery = Static<typeof SsoDiscovery>;

const Redirect = Type.Unsafe<undefined>({ description: 'Empty body; `Location` says where the browser goes' });

export const ssoRoutes = {
  getSso: route({
    method: 'GET',
    url: '/account/sso/',
    operationId: 'getSso',
    role: 'owner',
    summary: "The account's single sign-on (OpenID Connect): provider, client, button, who may join, whether passwords still sign in",
    tags: ['Security'],
    schema: { response: { 200: SsoSettings, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody } },
  }),
  updateSso: route({
    method: 'PUT',
    url: '/account/sso/',
    operationId: 'updateSso',
    role: 'owner',
    summary: "Change the account's single sign-on: only the fields named change",
    description:
      '`clientSecret` is write-only (an empty string clears it). 400 for an issuer that is not https (http only with ' +
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS=true), or whose host is a private address; `issuer: null` turns single sign-on off. ' +
      'The issuer is not contacted on saving: a wrong one shows at the first sign-in.',
    tags: ['Security'],
    schema: {
      body: object({
        issuer: Type.Optional(SsoFields.issuer),
        clientId: Type.Optional(SsoFields.clientId),
        clientSecret: Type.Optional(Type.String({ maxLength: 1000, description: 'write-only; empty: none' })),
        buttonName: Type.Optional(SsoFields.buttonName),
        allowedDomains: Type.Optional(SsoFields.allowedDomains),
        defaultRole: Type.Optional(SsoFields.defaultRole),
        passwordLogin: Type.Optional(SsoFields.passwordLogin),
      }),
      response: { 200: SsoSettings, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
    },
  }),
  discoverSso: route({
    method: 'GET',
    url: '/auth/sso/discover',
    operationId: 'discoverSso',
    anonymous: true,
    summary: "The single sign-on button of a login page: by the account's sign-in page (`account`, its slug) or by an e-mail's domain",
    description:
      'Give exactly one of `account` and `email`. By e-mail, only an account that lists the domain in `allowedDomains` answers ' +
      '(nothing says whether the e-mail is a member); `{ sso: null }` otherwise.',
    tags: ['Auth'],
    schema: {
      querystring: object({
        account: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
      }),
      response: { 200: SsoDiscovery, 400: ErrorBody, 429: ErrorBody },
    },
  }),
  startSso: route({
    method: 'GET',
    url: '/auth/sso/start',
    operationId: 'startSso',
    anonymous: true,
    summary: "Sign in with the account's provider: 302 to it (state, nonce and PKCE; a short-lived cookie binds them to this browser)",
    description: 'An account without single sign-on, or a provider that cannot be read, ends on the login page with a sentence saying so.',
    tags: ['Auth'],
    schema: {
      querystring: object({ account: Type.String({ minLength: 1, maxLength: 64 }) }),
      response: { 302: Redirect, 400: ErrorBody, 429: ErrorBody },
    },
  }),
  ssoCallback: route({
    method: 'GET',
    url: '/auth/sso/callback',
    operationId: 'ssoCallback',
    anonymous: true,
    summary: "The provider's answer: a web-account session (302 to the web account), or 302 to the login page with why not",
    description:
      'State, nonce and PKCE are checked; the e-mail must be verified (`email_verified`). An active member of the account with ' +
      'the e-mail signs in; an unknown e-mail joins with a pending invitation (its role) or an allowed domain (`defaultRole`); ' +
      'a removed member joins again only by a new invitation.',
    tags: ['Auth'],
    schema: {
      querystring: object({
        code: Type.Optional(Type.String({ maxLength: 2000 })),
        state: Type.Optional(Type.String({ maxLength: 500 })),
        iss: Type.Optional(Type.String({ maxLength: 500 })),
        session_state: Type.Optional(Type.String({ maxLength: 500 })),
        error: Type.Optional(Type.String({ maxLength: 200 })),
        error_description: Type.Optional(Type.String({ maxLength: 2000 })),
        error_uri: Type.Optional(Type.String({ maxLength: 2000 })),
      }),
      response: { 302: Redirect, 400: ErrorBody, 429: ErrorBody },
    },
  }),
} as const;
