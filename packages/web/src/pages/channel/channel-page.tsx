// One channel: its settings in sections of one form with one Save (Agent, Actions, Widget, Hours and handoff, Connection),
// Disable agent responses, a test event, Try the agent and delete. An agent reads it all and changes nothing.
import { useEffect, useState } from 'preact/hooks';
import type { Action, Channel, KnowledgeBase } from '@parley/contracts';
import type { ComponentChildren } from 'preact';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { AdminOnlyNote, useCanManage } from '../../role.tsx';
import { ErrorLine, Field, Link, StatusLine } from '../../ui.tsx';
import { kindLabel } from '../channels.tsx';
import { ActionChoices } from './action-choices.tsx';
import { DeleteChannelCard, TestEventCard, TryAgent } from './actions.tsx';
import { AgentFields, EngineFields } from './agent-fields.tsx';
import { ApiChannelHelp, CredentialFields, MessengerHelp, WebhookFields } from './connection.tsx';
import { bodyOf, draftOf, type Draft, type DraftFieldsProps } from './draft.ts';
import { HandoffFields, WorkingHoursFields } from './hours-fields.tsx';
import { ReplayCard } from './replay.tsx';
import { WidgetFields } from './widget-fields.tsx';

function Section({ name, children }: { name: string; children: ComponentChildren }) {
  return (
    <section class="card grid" aria-label={name}>
      <h2>{t(name)}</h2>
      {children}
    </section>
  );
}

function KnowledgeBaseField({ bases, draft, set }: DraftFieldsProps & { bases: KnowledgeBase[] }) {
  return (
    <Field label={t('Knowledge base')}>
      <select aria-label="Knowledge base" value={draft.knowledgeBaseId} onChange={(e) => set({ knowledgeBaseId: e.currentTarget.value })}>
        <option value="">{t('None')}</option>
        {bases.map((base) => (
          <option key={base.id} value={base.id}>
            {base.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

function ResponsesSwitch({ channel, path, onSaved, onError }: { channel: Channel; path: string; onSaved: (channel: Channel) => void; onError: (error: string | null) => void }) {
  const canManage = useCanManage();
  const toggle = async (disabled: boolean) => {
    onError(null);
    try {
      onSaved(await api<Channel>('PUT', path, { body: { disableAgentResponses: disabled } }));
    } catch (failure) {
      onError(errorText(failure));
    }
  };
  return (
    <div class="card row">
      <label class="check">
        <input
          type="checkbox"
          aria-label="Disable agent responses"
          disabled={!canManage}
          checked={channel.disableAgentResponses}
          onChange={(e) => void toggle(e.currentTarget.checked)}
        />
        <span>{t('Disable agent responses')}</span>
      </label>
    </div>
  );
}

function useChannel(path: string) {
  const [channel, setChannel] = useState<Channel | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [bases, setBases] = useState<KnowledgeBase[]>([]);
  const [actions, setActions] = useState<Action[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Channel>('GET', path).then(
      (c) => {
        setChannel(c);
        setDraft(draftOf(c));
      },
      (e) => setError(errorText(e)),
    );
    api<{ knowledgeBases: KnowledgeBase[] }>('GET', '/knowledge-bases').then((r) => setBases(r.knowledgeBases), () => undefined);
    api<{ actions: Action[] }>('GET', '/actions/').then((r) => setActions(r.actions), () => undefined);
  }, [path]);
  return { channel, setChannel, draft, setDraft, bases, actions, error, setError };
}

export function ChannelPage({ type, id }: { type: string; id: string }) {
  const path = `/channel/${type}/${encodeURIComponent(id)}/`;
  const { channel, setChannel, draft, setDraft, bases, actions, error, setError } = useChannel(path);
  const [status, setStatus] = useState<string | null>(null);
  const canManage = useCanManage();

  if (!channel || !draft) return <ErrorLine error={error} />;
  const set = (changes: Partial<Draft>) => setDraft({ ...draft, ...changes });
  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setStatus(null);
    try {
      const saved = await api<Channel>('PUT', path, { body: bodyOf(draft, channel) });
      setChannel(saved);
      setDraft(draftOf(saved));
      setStatus(t('Saved'));
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section class="channel">
      <p>
        <Link href="/channels">← {t('Channels')}</Link>
      </p>
      <h1>
        {channel.name} <small>{kindLabel(channel.type)}</small>
      </h1>
      {!canManage && <AdminOnlyNote text="Your role (agent) reads channels; an admin or the owner connects and changes them." />}
      <ResponsesSwitch channel={channel} path={path} onSaved={setChannel} onError={setError} />
      <form aria-label="Channel settings" onSubmit={save}>
        <fieldset class="plain" disabled={!canManage}>
          {channel.type === 'widget' && (
            <Section name="Chat widget">
              <WidgetFields channel={channel} draft={draft} set={set} onSaved={setChannel} />
            </Section>
          )}
          <Section name="Agent">
            <AgentFields draft={draft} set={set} />
            <EngineFields channel={channel} draft={draft} set={set} />
            <KnowledgeBaseField bases={bases} draft={draft} set={set} />
          </Section>
          <Section name="Actions">
            <ActionChoices actions={actions} draft={draft} set={set} />
          </Section>
          <Section name="Hours and handoff">
            <WorkingHoursFields draft={draft} set={set} />
            <HandoffFields draft={draft} set={set} />
          </Section>
          <Section name="Connection">
            {channel.type === 'custom' && <ApiChannelHelp channel={channel} />}
            {channel.inboundUrl !== null && <MessengerHelp channel={channel} />}
            <WebhookFields channel={channel} draft={draft} set={set} />
            <CredentialFields channel={channel} draft={draft} set={set} />
          </Section>
        </fieldset>
        <div class="row save-bar">
          <ErrorLine error={error} />
          {canManage && (
            <button type="submit" aria-label="Save">
              {t('Save')}
            </button>
          )}
          <StatusLine text={status} />
        </div>
      </form>
      {canManage && <TestEventCard type={type} id={id} clearError={() => setError(null)} />}
      {canManage && <TryAgent channel={channel} />}
      {canManage && <ReplayCard channel={channel} />}
      {canManage && <DeleteChannelCard path={path} onError={setError} />}
    </section>
  );
}
