// The first steps of a new account (issue #34, item 6), each with its state, read from what the account has: a
// knowledge base with entries, a channel, the widget allowed on a site, a teammate (done once one accepted an
// invitation; `invited` while one is pending). Shown until all are done.
import { useEffect, useState } from 'preact/hooks';
import type { Channel, KnowledgeBase, Member } from '@parley/contracts';
import { api } from '../api.ts';
import { t } from '../i18n.ts';
import { useCanManage } from '../role.tsx';
import { Link } from '../ui.tsx';

interface Step {
  name: string;
  done: boolean;
  /** Begun, not done: an invitation sent, not accepted yet. */
  invited?: boolean;
  href: string;
  hint: string;
}

async function loadSteps(): Promise<Step[]> {
  const [bases, channels, members] = await Promise.all([
    api<{ knowledgeBases: KnowledgeBase[] }>('GET', '/knowledge-bases'),
    api<{ channels: Channel[] }>('GET', '/channels/all/'),
    api<{ members: Member[] }>('GET', '/members/'),
  ]);
  const widgets = channels.channels.filter((channel) => channel.type === 'widget');
  const placed = widgets.find((channel) => (channel.widget?.allowedOrigins.length ?? 0) > 0);
  const firstWidget = placed ?? widgets[0];
  return [
    {
      name: 'Add knowledge',
      done: bases.knowledgeBases.some((base) => base.entryCount > 0),
      href: bases.knowledgeBases[0] ? `/knowledge-bases/${bases.knowledgeBases[0].id}` : '/knowledge-bases',
      hint: 'Questions and answers (or documents) the agent answers from.',
    },
    { name: 'Connect a channel', done: channels.channels.length > 0, href: '/channels', hint: 'Where customers write: the website widget, a messenger or the API.' },
    {
      name: 'Put the widget on your site',
      done: placed !== undefined,
      href: firstWidget ? `/channels/widget/${encodeURIComponent(firstWidget.id)}` : '/channels',
      hint: 'Paste the snippet into your pages and allow the site’s origin.',
    },
    {
      name: 'Invite a teammate',
      done: members.members.some((member) => member.role !== 'owner' && member.status === 'active'),
      invited: members.members.some((member) => member.status === 'invited'),
      href: '/team',
      hint: 'Someone to answer when the agent hands a chat over.',
    },
  ];
}

export function FirstSteps() {
  const canManage = useCanManage();
  const [steps, setSteps] = useState<Step[] | null>(null);
  useEffect(() => {
    if (canManage) loadSteps().then(setSteps, () => setSteps(null));
  }, [canManage]);
  if (!steps || steps.every((step) => step.done)) return null;
  return (
    <section class="card wide" aria-label="First steps">
      <h2>{t('First steps')}</h2>
      <ol class="steps">
        {steps.map((step) => {
          const state = step.done ? 'done' : step.invited ? 'invited' : 'to do';
          return (
            <li key={step.name} data-done={step.done}>
              <Link href={step.href}>{t(step.name)}</Link> —{' '}
              <span aria-label={`${step.name}: ${state}`}>{step.done ? `✓ ${t('done')}` : step.invited ? t('invited, not joined yet') : t('to do')}</span>
              <p class="muted small">{t(step.hint)}</p>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
