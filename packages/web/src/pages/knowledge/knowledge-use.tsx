// What a knowledge base is used for (issue #34, item 2): the channels that answer from it, each with its engine,
// and what that engine does with entries and documents (DESIGN, Agent engines and Knowledge from documents).
import { useEffect, useState } from 'preact/hooks';
import type { Channel } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { Link } from '../../ui.tsx';
import { channelPath, kindLabel } from '../channels.tsx';

/** What each engine does with the base (agent/engines/knowledge-base-engine.ts and clarify.ts; openai-engine.ts). */
const ENGINE_USE = {
  'knowledge-base':
    'Built-in engine: sends an entry’s answer word for word when a question matches it. When it is not sure, it offers the entries and document passages that fit the question best as choices; when the customer picks a passage, it sends that passage’s text (up to 700 characters) and names the document. A document never answers a question by itself.',
  'openai-compatible': 'Model: reads the best matching entries and document passages and writes its answer from them.',
} as const;
/** The built-in engine on a channel that offers no choices (`clarifyChoices` 0): documents are never reached. */
const NO_CHOICES =
  'Built-in engine: sends an entry’s answer word for word when a question matches it. This channel offers no choices, so the documents are not used.';

function engineUse(channel: Channel): string {
  if (channel.agentEngine.kind === 'knowledge-base' && channel.clarifyChoices === 0) return NO_CHOICES;
  return ENGINE_USE[channel.agentEngine.kind];
}

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
              <Link href={channelPath(channel)}>{channel.name}</Link> ({kindLabel(channel.type)}) — {t(engineUse(channel))}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
