// A real OpenID provider for the single sign-on tests (the `oidc-provider` package) on 127.0.0.1 over http. Its
// login and consent are automatic: whoever `nextUser` names signs in and consents at once, so a test (or a browser)
// going through `/auth` comes back to the client's redirect URI with a code.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface OidcUser {
  email: string;
  emailVerified: boolean;
  name: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The user the next sign-in is made as (its e-mail is its subject). */
  nextUser: OidcUser;
  close(): Promise<void>;
}

export async function startOidcProvider(redirectUri: string): Promise<TestOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const users = new Map<string, OidcUser>();
  const fixture: TestOidcProvider = {
    issuer,
    clientId: 'parley-test',
    clientSecret: 'parley-test-secret-0123456789abcdef',
    nextUser: { email: 'nobody@example.com', emailVerified: true, name: 'Nobody' },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: fixture.clientId,
        client_secret: fixture.clientSecret,
        redirect_uris: [redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The ID token carries the claims (no userinfo call needed).
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-oidc-cookie-key-0123456789abcdef'] },
    findAccount: (_ctx, sub) => {
      const user = users.get(sub);
      if (!user) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: user.email, email_verified: user.emailVerified, name: user.name }) };
    },
  });
  // Dev interactions replaced by one that signs `nextUser` in and consents to what the client asked.
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) {
      callback(req, res);
      return;
    }
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        const sub = fixture.nextUser.email;
        users.set(sub, { ...fixture.nextUser });
        const grant = new provider.Grant({ accountId: sub, clientId: fixture.clientId });
        const scope = typeof details.params.scope === 'string' ? details.params.scope : 'openid';
        grant.addOIDCScope(scope);
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { login: { accountId: sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
    })();
  });
  return fixture;
}
