// What a knowledge base is used for (issue #34, item 2): the channels that answer from it, each with its engine,
// and what that engine does with entries and documents (DESIGN, Agent engines and Knowledge from documents).
import { useEffect, useState } from 'preact/hooks';
import type { Channel } from '@parley/contracts';
import { api } from '../api.ts';
import { t } from '../i18n.ts';
import { Link } from '../ui.tsx';
import { channelPath, kindLabel } from './channels.tsx';

const ENGINE_USE = {
  'knowledge-base':
    'Built-in engine: sends an entry’s answer word for word when a question matches it; documents are not sent to customers (they only offer choices).',
  'openai-compatible': 'Model: reads the best matching entries and document passages and writes its answer from them.',
} as const;

export function KnowledgeUse({ baseId }: { baseId: string }) {
  const [channels, setChannels] = useState<Channel[] | null>(null);
  useEffect(() => {
    api<{ channels: Channel[] }>('GET', '/channels/all/').then(
      (r) => setChannels(r.channels.filter((channel) => channel.knowledgeBaseId === baseId)),
      () => setChannels([]),
    );
  }, [baseId]);
  if (channels === null) return null;
  return (
    <section class="card" aria-label="Used by">
      <h2>{t('Used by')}</h2>
      {channels.length === 0 ? (
        <p class="muted">{t('No channel answers from this knowledge base yet: choose it on a channel’s page, under Agent.')}</p>
      ) : (
        <ul class="plain">
          {channels.map((channel) => (
            <li key={channel.id}>
              <Link href={channelPath(channel)}>{channel.name}</Link> ({kindLabel(channel.type)}) — {t(ENGINE_USE[channel.agentEngine.kind])}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
