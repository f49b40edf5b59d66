// The OpenID Connect relying party of single sign-on (issue #45, item 2), through `openid-client`: discovery of the
// issuer, the authorization URL (state, nonce, PKCE S256) and the code exchange with its checks (state, nonce, PKCE,
// the ID token's signature, issuer, audience and lifetime). Every request to the provider goes through the URL guard
// as webhooks do (private addresses refused unless WEBHOOK_ALLOW_PRIVATE_NETWORKS), with a hard time limit.
import * as oidc from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { isForbiddenLiteral, type UrlGuard } from '../kernel/url-guard.ts';

export const OIDC_TIMEOUT_MS = 5_000;

/** What one sign-in must carry from its start to its callback. */
export interface OidcChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface OidcProviderSettings {
  issuer: string;
  clientId: string;
  /** undefined: a public client (PKCE alone). */
  clientSecret: string | undefined;
}

/** The claims a sign-in gives: the e-mail and whether the provider verified it, and a name. */
export interface OidcIdentity {
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
}

export function createOidcClient({ guard, timeoutMs = OIDC_TIMEOUT_MS }: { guard: Pick<UrlGuard, 'lookup' | 'allowPrivateNetworks'>; timeoutMs?: number }) {
  const dispatcher = new Agent({ connect: { lookup: guard.lookup }, keepAliveTimeout: 10_000 });

  const guardedFetch: oidc.CustomFetch = async (url, options) => {
    const target = new URL(url);
    if (!guard.allowPrivateNetworks && isForbiddenLiteral(target)) throw new Error(`refused to connect to ${target.hostname} (private network)`);
    const response = await undiciFetch(target, {
      method: options.method,
      headers: options.headers,
      body: options.body,
      redirect: 'manual',
      dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return response as unknown as Response;
  };

  async function configOf(settings: OidcProviderSettings): Promise<oidc.Configuration> {
    const issuer = new URL(settings.issuer);
    const auth = settings.clientSecret ? oidc.ClientSecretBasic(settings.clientSecret) : oidc.None();
    const options: oidc.DiscoveryRequestOptions = { [oidc.customFetch]: guardedFetch, timeout: timeoutMs / 1000 };
    if (issuer.protocol === 'http:') options.execute = [oidc.allowInsecureRequests];
    const config = await oidc.discovery(issuer, settings.clientId, settings.clientSecret ? { client_secret: settings.clientSecret } : undefined, auth, options);
    config[oidc.customFetch] = guardedFetch;
    return config;
  }

  return {
    /** The provider's authorization URL of a new sign-in, and the checks its callback must pass. */
    async start(settings: OidcProviderSettings, redirectUri: string): Promise<{ url: URL; checks: OidcChecks }> {
      const config = await configOf(settings);
      const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        response_type: 'code',
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url, checks };
    },

    /** Redeems the callback's code; throws when any check fails (state, nonce, PKCE, the ID token). */
    async finish(settings: OidcProviderSettings, redirectUri: string, query: string, checks: OidcChecks): Promise<OidcIdentity> {
      const config = await configOf(settings);
      const tokens = await oidc.authorizationCodeGrant(
        config,
        new URL(`${redirectUri}?${query}`),
        { pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true },
        { redirect_uri: redirectUri },
      );
      const claims = tokens.claims();
      if (!claims) throw new Error('the provider gave no ID token');
      let { email, email_verified: verified, name } = claims as { email?: unknown; email_verified?: unknown; name?: unknown };
      // Some providers put the e-mail in the userinfo only.
      if (typeof email !== 'string' && tokens.access_token) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        ({ email, email_verified: verified, name } = info);
      }
      return {
        email: typeof email === 'string' ? email : undefined,
        emailVerified: verified === true,
        name: typeof name === 'string' && name.trim() ? name.trim().slice(0, 200) : undefined,
      };
    },

    close: () => dispatcher.close(),
    destroy: () => dispatcher.destroy(),
  };
}

export type OidcClient = ReturnType<typeof createOidcClient>;
