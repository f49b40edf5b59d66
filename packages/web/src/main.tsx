// The web account: sign in (or accept an invitation), then Overview, Inbox, Reports, Channels, Knowledge bases, Actions,
// Deliveries, CRM, Team, Saved replies and Settings.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Session, SessionState } from '@parley/contracts';
import { api, setUnauthorizedHandler } from './api.ts';
import { t, useLang } from './i18n.ts';
import { navigate, usePath } from './router.ts';
import { LanguageSelect, Link } from './ui.tsx';
import { AdminOnlyNote, SessionContext } from './role.tsx';
import { LoginPage } from './pages/login.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { InboxPage } from './pages/inbox/inbox-page.tsx';
import { ChannelsPage } from './pages/channels.tsx';
import { ChannelPage } from './pages/channel/channel-page.tsx';
import { KnowledgeBasePage } from './pages/knowledge/base-page.tsx';
import { KnowledgeBasesPage } from './pages/knowledge/bases-page.tsx';
import { ActionsPage } from './pages/actions/actions-page.tsx';
import { DeliveriesPage } from './pages/deliveries.tsx';
import { CrmPage } from './pages/crm.tsx';
import { InvitationPage, SavedRepliesPage, TeamPage } from './pages/team.tsx';
import { ProfilePage } from './pages/profile.tsx';
import { AvailabilitySelect } from './availability.tsx';
import { TwoFactorSection } from './pages/two-factor-section.tsx';
import { ReportsPage } from './pages/reports/reports-page.tsx';
import { LedgerPage } from './pages/reports/ledger.tsx';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/password.tsx';
import { SettingsPage } from './pages/settings/settings-page.tsx';
import { NamePrompt, needsName } from './pages/name-prompt.tsx';
import { NeedsPersonBadge, useTeamAlerts } from './alerts.tsx';
import './style.css';

const NAV = [
  { href: '/overview', name: 'Overview' },
  { href: '/inbox', name: 'Inbox' },
  { href: '/reports', name: 'Reports' },
  { href: '/channels', name: 'Channels' },
  { href: '/knowledge-bases', name: 'Knowledge bases' },
  { href: '/actions', name: 'Actions' },
  { href: '/deliveries', name: 'Deliveries' },
  { href: '/crm', name: 'CRM' },
  { href: '/team', name: 'Team' },
  { href: '/saved-replies', name: 'Saved replies' },
  { href: '/settings', name: 'Settings' },
] as const;

/** Pages whose every call is an admin's (deliveries, CRM, the account's settings): not offered to an agent. */
const ADMIN_PAGES = new Set<string>(['/deliveries', '/crm', '/settings']);

function Page({
  path,
  session,
  needsPerson,
  onRenamed,
}: {
  path: string;
  session: Session;
  /** The count of chats needing a person (null until known), kept live by the team alerts. */
  needsPerson: number | null;
  onRenamed: (name: string) => void;
}) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (session.role === 'agent' && ADMIN_PAGES.has(`/${parts[0] ?? ''}`)) {
    return <AdminOnlyNote text="This page is for admins and the owner; your role (agent) works the Inbox." />;
  }
  switch (parts[0]) {
    case undefined:
    case 'overview':
      return <OverviewPage />;
    case 'inbox':
      return <InboxPage chatId={parts[1]} needsHumanCount={needsPerson} />;
    case 'channels':
      return parts[1] && parts[2] ? <ChannelPage type={parts[1]} id={parts[2]} /> : <ChannelsPage />;
    case 'knowledge-bases':
      return parts[1] ? <KnowledgeBasePage id={parts[1]} /> : <KnowledgeBasesPage />;
    case 'actions':
      return <ActionsPage id={parts[1]} />;
    case 'deliveries':
      return <DeliveriesPage />;
    case 'crm':
      return <CrmPage />;
    case 'team':
      return <TeamPage session={session} />;
    case 'saved-replies':
      return <SavedRepliesPage />;
    case 'reports':
      return parts[1] === 'conversations' ? <LedgerPage /> : <ReportsPage />;
    case 'profile':
      return <ProfilePage onRenamed={onRenamed} />;
    case 'settings':
      return <SettingsPage />;
    default:
      return <p>Not found</p>;
  }
}

function App() {
  useLang();
  const path = usePath();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  /** Why the member was signed out, shown on the sign-in page. */
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setSession(null);
      // A removed member is told why (issue #33).
      void api<SessionState>('GET', '/auth/session/state').then(
        (state) => {
          if (!state.signedIn && state.ended === 'removed') setNotice(t('Your access to this account was removed'));
        },
        () => undefined,
      );
    });
    // Always 200 (signedIn false when not), so a visitor who is not signed in sees no failed request.
    api<SessionState>('GET', '/auth/session/state').then(
      (state) =>
        setSession(
          state.signedIn
            ? {
                email: state.email,
                memberId: state.memberId,
                name: state.name,
                role: state.role,
                ...(state.twoFactorSetupRequired ? { twoFactorSetupRequired: true as const } : {}),
              }
            : null,
        ),
      () => setSession(null),
    );
  }, []);

  if (session === undefined) return <p class="loading">{t('Loading')}…</p>;
  // An invitation link: the new member signs in as themselves, whoever was signed in on this browser.
  const invitation = /^\/invite\/([^/]+)$/.exec(path)?.[1];
  if (invitation !== undefined) {
    return (
      <InvitationPage
        token={decodeURIComponent(invitation)}
        onSignedIn={(next) => {
          setSession(next);
          navigate('/inbox', true);
        }}
      />
    );
  }
  const signedIn = (next: Session) => {
    setNotice(null);
    setSession(next);
  };
  const reset = /^\/reset-password\/([^/]+)$/.exec(path)?.[1];
  if (reset !== undefined) {
    return (
      <ResetPasswordPage
        token={decodeURIComponent(reset)}
        onSignedIn={(next) => {
          signedIn(next);
          navigate('/inbox', true);
        }}
      />
    );
  }
  if (session === null && path === '/forgot-password') return <ForgotPasswordPage />;
  // `/login/<slug>`: an account's sign-in page, offering its single sign-on (issue #45, item 2).
  const loginSlug = /^\/login\/([^/]+)$/.exec(path)?.[1];
  if (session === null || path === '/login' || loginSlug !== undefined) {
    return (
      <LoginPage
        notice={notice}
        {...(loginSlug !== undefined ? { slug: decodeURIComponent(loginSlug) } : {})}
        onSignedIn={(next) => {
          signedIn(next);
          if (location.pathname.startsWith('/login') || location.pathname === '/forgot-password') navigate('/', true);
        }}
      />
    );
  }
  // The account requires two-factor sign-in and this member has not turned it on: only that, then the account.
  if (session.twoFactorSetupRequired) {
    const full: Session = { email: session.email, memberId: session.memberId, name: session.name, role: session.role };
    return (
      <main class="login">
        <h1>{t('Two-factor sign-in')}</h1>
        <p role="alert">{t('Your account requires two-factor sign-in: turn it on to go on.')}</p>
        <TwoFactorSection onEnabled={() => setSession(full)} />
      </main>
    );
  }
  return (
    <Shell
      path={path}
      session={session}
      onRenamed={(name) => setSession({ ...session, name })}
      onSignedOut={(removed) => {
        setNotice(removed ? t('Your access to this account was removed') : null);
        setSession(null);
      }}
    />
  );
}

/** The signed-in web account: the header (navigation, the count of chats needing a person, Profile) and the page. */
function Shell({
  path,
  session,
  onRenamed,
  onSignedOut,
}: {
  path: string;
  session: Session;
  onRenamed: (name: string) => void;
  onSignedOut: (removed: boolean) => void;
}) {
  const needsPerson = useTeamAlerts(onSignedOut, session.memberId);
  const signOut = async () => {
    await api('DELETE', '/auth/session').catch(() => undefined);
    onSignedOut(false);
  };
  const section = `/${path.split('/')[1] || 'overview'}`;
  return (
    <div class="shell">
      <header class="top">
        <strong class="brand">Parley</strong>
        <nav aria-label="Main">
          {NAV.filter((item) => session.role !== 'agent' || !ADMIN_PAGES.has(item.href)).map((item) => (
            <span key={item.href} class="nav-item">
              <Link href={item.href} label={item.name} current={section === item.href}>
                {t(item.name)}
              </Link>
              {item.href === '/inbox' && <NeedsPersonBadge count={needsPerson} />}
            </span>
          ))}
        </nav>
        <span class="who">
          {session.name} · {session.role}
        </span>
        <AvailabilitySelect />
        <Link href="/profile" label="Profile" current={section === '/profile'}>
          {t('Profile')}
        </Link>
        <LanguageSelect />
        <button type="button" aria-label="Sign out" onClick={signOut}>
          {t('Sign out')}
        </button>
      </header>
      <main>
        {needsName(session) && <NamePrompt onRenamed={onRenamed} />}
        <SessionContext.Provider value={session}>
          <Page path={path} session={session} needsPerson={needsPerson} onRenamed={onRenamed} />
        </SessionContext.Provider>
      </main>
    </div>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
