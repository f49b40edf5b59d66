// A pending invitation's link on the Team page (issue #42, item 11): shown and copied again as often as needed (the
// same link until it is renewed); an expired one, or one sent before links were kept, is renewed by inviting the
// e-mail again (a new link for 7 days; the old one stops working).
import { useState } from 'preact/hooks';
import type { Invitation, InvitationLink, Member } from '@parley/contracts';
import { api } from '../api.ts';
import { t } from '../i18n.ts';
import { CopyButton, ErrorLine, formatTime } from '../ui.tsx';
import { useAction } from '../use-action.ts';

export function PendingInvitation({ member }: { member: Member }) {
  const [link, setLink] = useState<InvitationLink | null>(null);
  const { busy, error, run } = useAction();
  const show = () => void run(async () => setLink(await api<InvitationLink>('GET', `/members/${member.id}/invitation/`)));
  const renew = () =>
    void run(async () => {
      const role = member.role === 'admin' ? 'admin' : 'agent';
      const named = member.name && member.name.toLowerCase() !== member.email.toLowerCase() ? { name: member.name } : {};
      await api<Invitation>('POST', '/members/invite/', { body: { email: member.email, role, ...named } });
      setLink(await api<InvitationLink>('GET', `/members/${member.id}/invitation/`));
    });
  if (!link) {
    return (
      <>
        <button type="button" class="small" aria-label={`Show invitation link for ${member.email}`} disabled={busy} onClick={show}>
          {t('Show link')}
        </button>
        <ErrorLine error={error} />
      </>
    );
  }
  const usable = link.inviteUrl !== null && !link.expired;
  return (
    <div class="invite-link">
      {usable && link.inviteUrl ? (
        <>
          <code aria-label={`Invitation link for ${member.email}`}>{link.inviteUrl}</code>
          <CopyButton text={link.inviteUrl} label={`Copy the link for ${member.email}`} />
          <p class="muted small">
            {t('Works once, until')} {formatTime(link.expiresAt)}.
          </p>
        </>
      ) : (
        <p class="muted small">
          {link.expired ? t('This invitation has expired.') : t('This invitation’s link was not kept (it was sent before links were).')}{' '}
          {t('Renew it for a new link, valid 7 days.')}
        </p>
      )}
      <button type="button" class="small" aria-label={`Renew invitation for ${member.email}`} disabled={busy} onClick={renew}>
        {t('Renew link')}
      </button>
      <ErrorLine error={error} />
    </div>
  );
}
