// Single sign-on with OpenID Connect (issue #45, item 2; DESIGN "Security and privacy"). The owner names the account's
// provider (issuer, client id, a write-only secret sealed with SECRETS_KEY); `/login/<slug>`, or an e-mail of an
// allowed domain, offers `Sign in with <buttonName>`. A sign-in starts with state, nonce and a PKCE verifier kept in
// a signed, HttpOnly cookie of 10 minutes bound to the browser (SameSite=Lax: the provider's redirect back is a
// cross-site navigation), and ends at the callback: the checks pass (openid-client), the e-mail is verified, and it
// names an active member of the account, a pending invitation (its role; the invitation is used) or an allowed
// domain (`defaultRole`). A removed member joins again only by a new invitation. The provider's sign-in counts as the
// second factor: it opens an ordinary web-account session (docs/decisions.md).
import type { SsoDiscovery, SsoSettings } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { createSigner, createVerifier } from 'fast-jwt';
import { diffChanges, memberContext, recordAudit, type AuditContext } from '../audit/audit-record.ts';
import type { Database } from '../db/client.ts';
import { Errors } from '../errors.ts';
import type { SignInClient, SsoSignIn, StartedSession } from '../http/console/console-account.ts';
import type { UrlGuard } from '../kernel/url-guard.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { normalizeEmail } from './accounts-service.ts';
import type { MemberRow } from './members-store.ts';
import type { OidcChecks, OidcClient, OidcProviderSettings } from './oidc-client.ts';
import { createSsoStore, type SsoChange, type SsoRow, type SsoStore } from './sso-store.ts';

/** How long a started sign-in waits for the provider's answer. */
export const SSO_START_TTL_MS = 10 * 60_000;
export const SSO_CALLBACK_PATH = '/console/v1/auth/sso/callback';

/**
 * Why a sign-in ended on the login page (`?sso=<reason>`; the web account says it in a sentence): `off` no single
 * sign-on there, `unavailable` the provider could not be read, `expired` no sign-in started in this browser (or too
 * long ago), `invalid` a check failed (state, nonce, PKCE, the ID token) or the provider refused, `unverified` no
 * verified e-mail, `not_member` the e-mail may not join, `removed` it was removed from the account.
 */
export type SsoFailure = 'off' | 'unavailable' | 'expired' | 'invalid' | 'unverified' | 'not_member' | 'removed';

/** The settings' fields an `sso.updated` audit event compares (the secret masked). */
const AUDITED_FIELDS = ['issuer', 'clientId', 'clientSecret', 'buttonName', 'allowedDomains', 'defaultRole', 'passwordLogin'] as const;

export interface SsoServiceDeps {
  /** Saving the settings, and a member joining, commit with their audit event in one transaction. */
  db: Database;
  store: SsoStore;
  oidc: Pick<OidcClient, 'start' | 'finish'>;
  secretBox: SecretBox;
  guard: Pick<UrlGuard, 'check' | 'allowPrivateNetworks'>;
  clock: Clock;
  publicUrl: string;
  jwtSecret: string;
  /** A new web-account session of the member (the same sessions as a password sign-in). */
  startSession: (member: MemberRow, client: SignInClient) => Promise<StartedSession>;
  memberChanged: (memberId: string) => void;
  logger: Pick<FastifyBaseLogger, 'warn'>;
}

interface StartClaims {
  acc: string;
  st: string;
  no: string;
  cv: string;
}

const configured = (row: SsoRow): row is SsoRow & { issuer: string; clientId: string } => row.issuer !== null && row.clientId !== null;

export function createSsoService(deps: SsoServiceDeps) {
  const { store, oidc, secretBox, guard, clock, publicUrl, logger } = deps;
  const base = publicUrl.replace(/\/+$/, '');
  const redirectUri = `${base}${SSO_CALLBACK_PATH}`;
  // A key of its own: a sign-in's cookie can never pass for a session token, nor the other way round.
  const key = `parley-sso:${deps.jwtSecret}`;
  const sign = createSigner({ key, algorithm: 'HS256', expiresIn: SSO_START_TTL_MS });
  const verify = createVerifier({ key, algorithms: ['HS256'] });

  const loginPage = (slug: string | undefined, failure?: SsoFailure) =>
    `/login${slug ? `/${encodeURIComponent(slug)}` : ''}${failure ? `?sso=${failure}` : ''}`;

  function view(row: SsoRow): SsoSettings {
    return {
      issuer: row.issuer,
      clientId: row.clientId,
      clientSecretSet: row.clientSecret !== null && row.clientSecret !== '',
      buttonName: row.buttonName,
      allowedDomains: row.allowedDomains,
      defaultRole: row.defaultRole,
      passwordLogin: row.passwordLogin,
      slug: row.slug,
      loginUrl: `${base}/login/${row.slug}`,
      redirectUri,
    };
  }

  function providerOf(row: SsoRow & { issuer: string; clientId: string }): OidcProviderSettings {
    return { issuer: row.issuer, clientId: row.clientId, clientSecret: row.clientSecret ? secretBox.open(row.clientSecret) : undefined };
  }

  async function checkIssuer(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw Errors.ssoIssuerInvalid();
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && guard.allowPrivateNetworks)) throw Errors.ssoIssuerInvalid();
    if (url.search || url.hash) throw Errors.ssoIssuerInvalid();
    // Private addresses are refused as a webhook's are (every request is checked again when it connects).
    await guard.check(raw, 'issuer', { allowUnresolvable: true });
    return raw.replace(/\/+$/, '');
  }

  const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

  /**
   * The member the verified e-mail signs in as, joining the account when it may (with its audit event, the joining
   * member its actor, in the join's transaction); else why not.
   */
  async function memberFor(row: SsoRow, email: string, name: string | undefined, address: string): Promise<MemberRow | SsoFailure> {
    const now = clock.now();
    const existing = await store.memberByEmail(email);
    if (existing && existing.accountId !== row.accountId) return 'not_member';
    if (existing?.status === 'active') return existing;
    const domainAllowed = row.allowedDomains.includes(domainOf(email));
    const removed = await store.wasRemoved(row.accountId, email);
    if (existing) {
      // Invited: a pending invitation joins with its role; an expired one is no invitation.
      const pending = existing.inviteExpiresAt !== null && existing.inviteExpiresAt > now;
      if (!pending && (!domainAllowed || removed)) return removed ? 'removed' : 'not_member';
      const joined = await deps.db.transaction(async (tx) => {
        const txStore = createSsoStore(tx);
        const activated = await txStore.activate(existing.id, { name: name ?? existing.name, role: pending ? existing.role : row.defaultRole }, now);
        if (!activated) return undefined;
        await txStore.forgetRemoval(row.accountId, email);
        await recordAudit(tx, memberContext(activated, address), {
          accountId: row.accountId,
          kind: 'invitation.accepted',
          target: { type: 'member', id: activated.id, name: activated.name },
          changes: { status: ['invited', 'active'], ...(activated.role === existing.role ? {} : { role: [existing.role, activated.role] }) },
        });
        return activated;
      });
      if (!joined) return 'not_member';
      deps.memberChanged(joined.id);
      return joined;
    }
    if (removed) return 'removed';
    if (!domainAllowed) return 'not_member';
    const joined = await deps.db.transaction(async (tx) => {
      const inserted = await createSsoStore(tx).insertMember({ id: newId(), accountId: row.accountId, email, name: name ?? email, role: row.defaultRole });
      if (inserted) {
        await recordAudit(tx, memberContext(inserted, address), {
          accountId: row.accountId,
          kind: 'member.joined',
          target: { type: 'member', id: inserted.id, name: inserted.name },
          changes: { email: [null, inserted.email], role: [null, inserted.role] },
        });
      }
      return inserted;
    });
    return joined ?? 'not_member';
  }

  const sso: SsoSignIn = {
    async discover(query) {
      if ((query.account === undefined) === (query.email === undefined)) throw Errors.ssoDiscoverQuery();
      let row: SsoRow | undefined;
      if (query.account !== undefined) row = await store.ofSlug(query.account);
      else {
        const email = normalizeEmail(query.email ?? '');
        row = email.includes('@') ? await store.ofDomain(domainOf(email)) : undefined;
      }
      const answer: SsoDiscovery = {
        sso: row && configured(row) ? { buttonName: row.buttonName, startUrl: `/console/v1/auth/sso/start?account=${encodeURIComponent(row.slug)}` } : null,
      };
      return answer;
    },

    async start(slug) {
      const row = await store.ofSlug(slug);
      if (!row || !configured(row)) return { location: loginPage(row?.slug, 'off') };
      try {
        const { url, checks } = await oidc.start(providerOf(row), redirectUri);
        const claims: StartClaims = { acc: row.accountId, st: checks.state, no: checks.nonce, cv: checks.codeVerifier };
        return { location: url.href, cookie: { value: sign(claims), maxAgeSeconds: SSO_START_TTL_MS / 1000 } };
      } catch (error) {
        logger.warn({ accountId: row.accountId, err: error }, 'single sign-on: the provider could not be read');
        return { location: loginPage(row.slug, 'unavailable') };
      }
    },

    async callback(query, cookie, client) {
      let claims: StartClaims;
      try {
        claims = verify(cookie ?? '') as StartClaims;
      } catch {
        return { location: loginPage(undefined, 'expired') };
      }
      const row = await store.ofAccount(claims.acc);
      if (!row || !configured(row)) return { location: loginPage(row?.slug, 'off') };
      const params = new URLSearchParams(query);
      if (params.get('state') !== claims.st) return { location: loginPage(row.slug, 'invalid') };
      const checks: OidcChecks = { state: claims.st, nonce: claims.no, codeVerifier: claims.cv };
      let identity;
      try {
        identity = await oidc.finish(providerOf(row), redirectUri, query, checks);
      } catch (error) {
        logger.warn({ accountId: row.accountId, err: error }, 'single sign-on: the sign-in did not pass its checks');
        return { location: loginPage(row.slug, 'invalid') };
      }
      if (!identity.email || !identity.emailVerified) return { location: loginPage(row.slug, 'unverified') };
      const member = await memberFor(row, normalizeEmail(identity.email), identity.name, client.ip);
      if (typeof member === 'string') return { location: loginPage(row.slug, member) };
      return { location: '/', session: await deps.startSession(member, client) };
    },
  };

  return {
    sso,

    async get(accountId: string): Promise<SsoSettings> {
      const row = await store.ofAccount(accountId);
      if (!row) throw Errors.accountNotFound();
      return view(row);
    },

    /** Only the fields named change; `clientSecret` is sealed (empty: none). */
    async update(
      accountId: string,
      input: Partial<Omit<SsoSettings, 'clientSecretSet' | 'slug' | 'loginUrl' | 'redirectUri'>> & { clientSecret?: string },
      audit: AuditContext,
    ): Promise<SsoSettings> {
      const current = await store.ofAccount(accountId);
      if (!current) throw Errors.accountNotFound();
      const change: SsoChange = {};
      if (input.issuer !== undefined) change.issuer = input.issuer === null ? null : await checkIssuer(input.issuer);
      if (input.clientId !== undefined) change.clientId = input.clientId === null ? null : input.clientId.trim();
      if (input.clientSecret !== undefined) change.clientSecret = input.clientSecret === '' ? null : secretBox.seal(input.clientSecret);
      if (input.buttonName !== undefined) change.buttonName = input.buttonName.trim() || 'SSO';
      if (input.allowedDomains !== undefined) change.allowedDomains = [...new Set(input.allowedDomains.map((domain) => domain.toLowerCase()))];
      if (input.defaultRole !== undefined) change.defaultRole = input.defaultRole;
      if (input.passwordLogin !== undefined) change.passwordLogin = input.passwordLogin;
      const next = { ...current, ...change };
      if (next.issuer !== null && !next.clientId) throw Errors.ssoClientIdRequired();
      // Passwords off without a provider would leave the members no way in.
      if (!next.passwordLogin && !configured(next)) throw Errors.ssoPasswordLoginNeedsSso();
      await deps.db.transaction(async (tx) => {
        await createSsoStore(tx).save(accountId, change);
        const changes = diffChanges({ ...current }, { ...next }, { fields: AUDITED_FIELDS, secrets: ['clientSecret'] });
        if (Object.keys(changes).length > 0) {
          await recordAudit(tx, audit, { accountId, kind: 'sso.updated', target: { type: 'account', id: accountId, name: null }, changes });
        }
      });
      return view(next);
    },
  };
}

export type SsoService = ReturnType<typeof createSsoService>;
