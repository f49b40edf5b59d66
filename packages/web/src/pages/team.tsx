// The team (issue #25): members and their roles, invitations (the link shown, or e-mailed, and shown again while
// pending: invitation-link.tsx), the page an invitation link opens, and the account's saved replies. The server enforces roles; these pages only hide what
// the member's role cannot do.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { CannedResponse, Invitation, Member, MemberRole, Session } from '@parley/contracts';
import { api, errorText } from '../api.ts';
import { useAction } from '../use-action.ts';
import { t } from '../i18n.ts';
import { CopyButton, ErrorLine, Field, LanguageSelect, StatusLine } from '../ui.tsx';
import { PendingInvitation } from './invitation-link.tsx';

/** The short code's rule in words (contracts' SHORT_CODE_PATTERN), shown under the field and as the browser's hint. */
const SHORT_CODE_RULE = 'Letters, digits, _ and -, no spaces, up to 50 characters; you type it after / in a reply.';
const SHORT_CODE_PATTERN = '[A-Za-z0-9_\\-]{1,50}';

const ROLE_LABELS: Record<MemberRole, string> = { owner: 'Owner', admin: 'Admin', agent: 'Agent' };

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<'agent' | 'admin'>('agent');
  const [invitation, setInvitation] = useState<Invitation | null>(null);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const sent = await api<Invitation>('POST', '/members/invite/', { body: { email, role, ...(name.trim() ? { name: name.trim() } : {}) } });
      setInvitation(sent);
      setEmail('');
      setName('');
      onInvited();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  if (!open) {
    return (
      <button type="button" aria-label="Invite member" onClick={() => setOpen(true)}>
        {t('Invite member')}
      </button>
    );
  }
  return (
    <form class="card" onSubmit={submit}>
      <h2>{t('Invite member')}</h2>
      <Field label={t('Email')}>
        <input type="email" aria-label="Email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </Field>
      <Field label={t('Name (optional)')}>
        <input aria-label="Name" maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label={t('Role')}>
        <select aria-label="Role" value={role} onChange={(e) => setRole(e.currentTarget.value as 'agent' | 'admin')}>
          <option value="agent">{t('Agent')}</option>
          <option value="admin">{t('Admin')}</option>
        </select>
      </Field>
      <ErrorLine error={error} />
      <div class="row">
        <button type="submit" aria-label="Send invitation">
          {t('Send invitation')}
        </button>
        <button type="button" aria-label="Close" onClick={() => setOpen(false)}>
          {t('Close')}
        </button>
      </div>
      {invitation && (
        <div class="invite-link">
          <p>
            {invitation.emailed
              ? t('The invitation was e-mailed. Its link, valid 7 days, works once:')
              : t('Send this link to your teammate (valid 7 days, works once; Show link on the member list shows it again):')}
          </p>
          <code aria-label="Invitation link">{invitation.inviteUrl}</code>
          <CopyButton text={invitation.inviteUrl} label="Copy the link" />
        </div>
      )}
    </form>
  );
}

export function TeamPage({ session }: { session: Session }) {
  const [members, setMembers] = useState<Member[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const canManage = session.role !== 'agent';

  const load = useCallback(async () => {
    try {
      setMembers((await api<{ members: Member[] }>('GET', '/members/')).members);
    } catch (failure) {
      setError(errorText(failure));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const changeRole = async (member: Member, role: string) => {
    setError(null);
    try {
      await api('PUT', `/members/${member.id}/`, { body: { role } });
      setStatus(t('Role changed: they sign in again.'));
      await load();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  /** A member's capacity for auto-assignment (empty: the account's). */
  const changeCapacity = async (member: Member, text: string) => {
    const capacity = text.trim() === '' ? null : Number(text);
    if (capacity === member.capacity) return;
    setError(null);
    try {
      await api('PUT', `/members/${member.id}/`, { body: { capacity } });
      setStatus(t('Capacity saved.'));
      await load();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  const remove = async (member: Member) => {
    if (!confirm(`${t('Remove')} ${member.name}?`)) return;
    setError(null);
    try {
      await api('DELETE', `/members/${member.id}/`);
      setStatus(t('Removed: their sessions ended.'));
      await load();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section class="page">
      <h1>{t('Team')}</h1>
      {canManage && <InviteForm onInvited={() => void load()} />}
      <ErrorLine error={error} />
      <StatusLine text={status} />
      <table aria-label="Members">
        <thead>
          <tr>
            <th>{t('Name')}</th>
            <th>{t('Email')}</th>
            <th>{t('Role')}</th>
            <th>{t('Status')}</th>
            <th title={t("Open chats auto-assignment gives them; empty: the account's")}>{t('Capacity')}</th>
            {canManage && <th />}
          </tr>
        </thead>
        <tbody>
          {members.map((member) => (
            <tr key={member.id}>
              <td>{member.name}</td>
              <td>{member.email}</td>
              <td>
                {canManage && member.role !== 'owner' ? (
                  <select aria-label={`Role of ${member.email}`} value={member.role} onChange={(e) => void changeRole(member, e.currentTarget.value)}>
                    <option value="agent">{t('Agent')}</option>
                    <option value="admin">{t('Admin')}</option>
                  </select>
                ) : (
                  t(ROLE_LABELS[member.role])
                )}
              </td>
              <td>{member.status === 'invited' ? t('Invited') : t('Active')}</td>
              <td>
                {canManage ? (
                  <input
                    type="number"
                    class="capacity"
                    aria-label={`Capacity of ${member.email}`}
                    min={1}
                    max={100}
                    step={1}
                    placeholder={t('account')}
                    value={member.capacity ?? ''}
                    onChange={(e) => void changeCapacity(member, e.currentTarget.value)}
                  />
                ) : (
                  (member.capacity ?? '—')
                )}
              </td>
              {canManage && (
                <td>
                  {member.status === 'invited' && <PendingInvitation member={member} />}
                  {member.role !== 'owner' && (
                    <button type="button" class="small" aria-label={`Remove ${member.email}`} onClick={() => void remove(member)}>
                      {t('Remove')}
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The page an invitation link opens: the new member chooses a name and a password, and is signed in. */
export function InvitationPage({ token, onSignedIn }: { token: string; onSignedIn: (session: Session) => void }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const accepted = await api<{ token: string; email: string }>('POST', '/auth/accept-invite', { body: { token, name, password } });
      // The web account keeps no token: it starts a cookie session with the password just chosen.
      onSignedIn(await api<Session>('POST', '/auth/session', { body: { email: accepted.email, password } }));
    });
  };

  return (
    <main class="login">
      <form onSubmit={submit}>
        <h1>{t('Join your team on Parley')}</h1>
        <label class="field">
          <span>{t('Name')}</span>
          <input aria-label="Name" autocomplete="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{t('Password')}</span>
          <input
            type="password"
            aria-label="Password"
            autocomplete="new-password"
            required
            minLength={8}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <ErrorLine error={error} />
        <button type="submit" aria-label="Accept invitation" disabled={busy}>
          {t('Accept invitation')}
        </button>
        <LanguageSelect />
      </form>
    </main>
  );
}

function SavedReplyRow({ reply, onChanged }: { reply: CannedResponse; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [shortCode, setShortCode] = useState(reply.shortCode);
  const [text, setText] = useState(reply.text);
  const [error, setError] = useState<string | null>(null);
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await api('PUT', `/canned-responses/${reply.id}/`, { body: { shortCode, text } });
      setEditing(false);
      onChanged();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  const remove = async () => {
    try {
      await api('DELETE', `/canned-responses/${reply.id}/`);
      onChanged();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  return (
    <li>
      {editing ? (
        <form class="row wrap" onSubmit={save}>
          <input
            aria-label={`Short code of /${reply.shortCode}`}
            required
            pattern={SHORT_CODE_PATTERN}
            title={t(SHORT_CODE_RULE)}
            value={shortCode}
            onInput={(e) => setShortCode(e.currentTarget.value)}
          />
          <textarea aria-label={`Text of /${reply.shortCode}`} required rows={2} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          <button type="submit" aria-label={`Save /${reply.shortCode}`}>
            {t('Save')}
          </button>
        </form>
      ) : (
        <div class="row wrap">
          <strong>/{reply.shortCode}</strong>
          <span>{reply.text}</span>
          <button type="button" class="small" aria-label={`Edit /${reply.shortCode}`} onClick={() => setEditing(true)}>
            {t('Edit')}
          </button>
          <button type="button" class="small" aria-label={`Delete /${reply.shortCode}`} onClick={() => void remove()}>
            {t('Delete')}
          </button>
        </div>
      )}
      <ErrorLine error={error} />
    </li>
  );
}

/** Saved replies: typed in the Inbox's reply box as `/shortCode`. */
export function SavedRepliesPage() {
  const [replies, setReplies] = useState<CannedResponse[]>([]);
  const [shortCode, setShortCode] = useState('');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setReplies((await api<{ cannedResponses: CannedResponse[] }>('GET', '/canned-responses/')).cannedResponses);
    } catch (failure) {
      setError(errorText(failure));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await api('POST', '/canned-responses/', { body: { shortCode, text } });
      setShortCode('');
      setText('');
      await load();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section class="page">
      <h1>{t('Saved replies')}</h1>
      <p class="muted">{t('Type / and the short code in the Inbox reply box to insert one.')}</p>
      <form class="card" onSubmit={create}>
        <Field label={t('Short code')}>
          <input
            aria-label="Short code"
            aria-describedby="short-code-rule"
            required
            pattern={SHORT_CODE_PATTERN}
            title={t(SHORT_CODE_RULE)}
            value={shortCode}
            onInput={(e) => setShortCode(e.currentTarget.value)}
          />
        </Field>
        <p id="short-code-rule" class="muted small">
          {t(SHORT_CODE_RULE)}
        </p>
        <Field label={t('Text')}>
          <textarea aria-label="Text" required rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </Field>
        <ErrorLine error={error} />
        <button type="submit" aria-label="Save reply">
          {t('Save reply')}
        </button>
      </form>
      <ul aria-label="Saved replies" class="saved-replies">
        {replies.map((reply) => (
          <SavedReplyRow key={reply.id} reply={reply} onChanged={() => void load()} />
        ))}
      </ul>
    </section>
  );
}
