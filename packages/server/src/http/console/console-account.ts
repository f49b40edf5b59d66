// What the console plugin needs of the accounts feature (accounts/console-auth.ts implements it; the composition
// root passes it): the member behind a request, and the sign-in operations of the console's open routes.
import type { MemberRole } from '@parley/contracts';

/** The member behind a console request (issue #25): checked against the database's session version on every call. */
export interface ConsoleAccount {
  accountId: string;
  memberId: string;
  email: string;
  name: string;
  role: MemberRole;
  /** The session the request's credential belongs to (issue #45). */
  sessionId: string;
  /** The session can only set two-factor sign-in up: the account requires it and the member has not turned it on. */
  twoFactorSetupOnly: boolean;
}

/** The password was right; the sign-in goes on with a code (issue #45). */
export interface TwoFactorChallenge {
  twoFactorRequired: true;
  challenge: string;
}

/** A web-account sign-in: the cookie's token and who signed in. */
export interface StartedSession {
  token: string;
  member: { email: string; memberId: string; name: string; role: MemberRole; twoFactorSetupRequired?: true };
  maxAgeSeconds: number;
}

export type SecondStepInput = { challenge: string; code?: string; recoveryCode?: string };

/** Where a sign-in comes from (its address and browser). */
export interface SignInClient {
  ip: string;
  userAgent: string;
}

export interface ConsoleAuth {
  login(input: { email: string; password: string }, client: SignInClient): Promise<{ token: string } | TwoFactorChallenge>;
  loginTwoFactor(input: SecondStepInput, client: SignInClient): Promise<{ token: string }>;
  /** Web-account login: a longer-lived token that only ever travels in an HttpOnly cookie. */
  startSession(input: { email: string; password: string }, client: SignInClient): Promise<StartedSession | TwoFactorChallenge>;
  startSessionTwoFactor(input: SecondStepInput, client: SignInClient): Promise<StartedSession>;
  acceptInvitation(input: { token: string; name: string; password: string }, client: SignInClient): Promise<{ token: string; email: string }>;
  changePassword(member: ConsoleAccount, input: { currentPassword: string; newPassword: string }): Promise<void>;
  /** Why a credential whose signature verifies no longer signs anyone in (`removed`), or undefined. */
  endedBecause(token: string): Promise<'removed' | undefined>;
  signOut(member: ConsoleAccount): Promise<void>;
  /** The member behind a bearer token, or 401. */
  authenticate(authorization: string | undefined): Promise<ConsoleAccount>;
  /** The member behind a session cookie's token, or 401. */
  authenticateSession(token: string): Promise<ConsoleAccount>;
  /**
   * The member (and account) of a bearer token whose signature verifies (the rate limit's bucket: no error and no
   * database read, so a token ended a moment ago still counts against its member).
   */
  signInOf(authorization: string | undefined): { accountId: string; memberId: string } | undefined;
  /** The member of a session cookie's token, likewise. */
  sessionSignInOf(token: string): { accountId: string; memberId: string } | undefined;
}

/**
 * Single sign-on's open routes (issue #45, item 2; accounts/sso-service.ts implements it): the login page's button,
 * the redirect to the provider with the cookie that binds the sign-in to the browser, and the provider's answer.
 */
export interface SsoSignIn {
  discover(query: { account?: string; email?: string }): Promise<{ sso: { buttonName: string; startUrl: string } | null }>;
  start(slug: string): Promise<{ location: string; cookie?: { value: string; maxAgeSeconds: number } }>;
  /** `query`: the callback's raw query string; `cookie`: the start's cookie. A session, or the login page saying why not. */
  callback(query: string, cookie: string | undefined, client: SignInClient): Promise<{ location: string; session?: StartedSession }>;
}
