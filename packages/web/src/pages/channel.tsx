// One channel: agent settings, engine, knowledge base, working hours, webhook, test event, Disable agent
// responses, delete, and the Try the agent panel.
import { useEffect, useState } from 'preact/hooks';
import type {
  AgentEngineInput,
  Channel,
  GivenPassage,
  KnowledgeBase,
  PreChatForm,
  UpdateChannelBody,
  Weekday,
  WidgetSettingsInput,
  WorkingHours,
} from '@parley/contracts';
import { api, errorText } from '../api.ts';
import { useAction } from '../use-action.ts';
import { t } from '../i18n.ts';
import { navigate } from '../router.ts';
import { ErrorLine, Field, formatTime, Link, StatusLine } from '../ui.tsx';
import { CREDENTIAL_FIELDS, kindLabel } from './channels.tsx';

const DAYS: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

interface Draft {
  name: string;
  isActive: boolean;
  role: string;
  behavior: string;
  task: string;
  greeting: string;
  aiLang: string;
  engine: 'knowledge-base' | 'openai-compatible';
  baseUrl: string;
  /** The knowledge-base engine's answerThreshold as typed; empty = the calibrated default. */
  answerThreshold: string;
  model: string;
  apiKey: string;
  knowledgeBaseId: string;
  hoursOn: boolean;
  timeZone: string;
  intervals: WorkingHours['intervals'];
  autoReply: string;
  /** Empty: the default sentence in the channel's language. */
  handoffMessage: string;
  handoffAfterFallbacks: number;
  webhookUrl: string;
  webhookSecret: string;
  credentials: Record<string, string>;
}

function draftOf(channel: Channel): Draft {
  const engine = channel.agentEngine;
  return {
    name: channel.name,
    isActive: channel.settings.isActive,
    role: channel.settings.role,
    behavior: channel.settings.behavior,
    task: channel.settings.task,
    greeting: channel.settings.greeting,
    aiLang: channel.settings.aiLang,
    engine: engine.kind,
    baseUrl: engine.kind === 'openai-compatible' ? engine.baseUrl : '',
    answerThreshold: engine.kind === 'knowledge-base' && engine.answerThreshold !== undefined ? String(engine.answerThreshold) : '',
    model: engine.kind === 'openai-compatible' ? engine.model : '',
    apiKey: '',
    knowledgeBaseId: channel.knowledgeBaseId ?? '',
    hoursOn: channel.workingHours !== null,
    timeZone: channel.workingHours?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    intervals: channel.workingHours?.intervals ?? [],
    autoReply: channel.autoReply ?? '',
    handoffMessage: channel.handoffMessage ?? '',
    handoffAfterFallbacks: channel.handoffAfterFallbacks,
    webhookUrl: channel.webhookUrl ?? '',
    webhookSecret: '',
    credentials: {},
  };
}

function bodyOf(draft: Draft, channel: Channel): UpdateChannelBody {
  let agentEngine: AgentEngineInput = { kind: 'knowledge-base' };
  if (draft.answerThreshold.trim() !== '') agentEngine.answerThreshold = Number(draft.answerThreshold);
  if (draft.engine === 'openai-compatible') {
    agentEngine = { kind: 'openai-compatible', baseUrl: draft.baseUrl.trim(), model: draft.model.trim() };
    if (draft.apiKey) agentEngine.apiKey = draft.apiKey;
  }
  const body: UpdateChannelBody = {
    name: draft.name,
    settings: {
      isActive: draft.isActive,
      role: draft.role,
      behavior: draft.behavior,
      task: draft.task,
      greeting: draft.greeting,
      aiLang: draft.aiLang,
    },
    agentEngine,
    knowledgeBaseId: draft.knowledgeBaseId || null,
    workingHours: draft.hoursOn ? { timeZone: draft.timeZone, intervals: draft.intervals } : null,
    autoReply: draft.autoReply.trim() ? draft.autoReply : null,
    handoffMessage: draft.handoffMessage.trim() ? draft.handoffMessage : null,
    handoffAfterFallbacks: draft.handoffAfterFallbacks,
    webhookUrl: draft.webhookUrl.trim() ? draft.webhookUrl.trim() : null,
  };
  if (draft.webhookSecret) body.webhookSecret = draft.webhookSecret;
  const fields = CREDENTIAL_FIELDS[channel.type] ?? [];
  if (fields.some((f) => draft.credentials[f.key])) {
    body.credentials = Object.fromEntries(fields.map((f) => [f.key, draft.credentials[f.key] ?? '']));
  }
  return body;
}

function ApiChannelHelp({ channel }: { channel: Channel }) {
  const curl = [
    `curl -X POST '${location.origin}/api/v1/chats/chat/send-message-universal' \\`,
    `  -H 'Authorization: <your API key>' -H 'Content-Type: application/json' \\`,
    `  -d '${JSON.stringify({ channel: 'custom', channelId: channel.id, externalChatId: 'customer-1', role: 'user', text: 'Hello!' })}'`,
  ].join('\n');
  return (
    <section class="card">
      <p>
        {t('Channel ID')}: <code>{channel.id}</code>
      </p>
      <h3>{t('Send a message through the API')}</h3>
      <pre aria-label="curl example">{curl}</pre>
    </section>
  );
}

/** A widget channel: the snippet to paste, where it may show, its look, identity rule and abuse limits. */
function WidgetSettingsForm({ channel, path, onSaved }: { channel: Channel; path: string; onSaved: (channel: Channel) => void }) {
  const view = channel.widget;
  const [origins, setOrigins] = useState((view?.allowedOrigins ?? []).join('\n'));
  const [title, setTitle] = useState(view?.title ?? '');
  const [color, setColor] = useState(view?.color ?? '#2563eb');
  const [position, setPosition] = useState<'right' | 'left'>(view?.position ?? 'right');
  const [launcherText, setLauncherText] = useState(view?.launcherText ?? '');
  const [greeting, setGreeting] = useState(view?.greeting ?? '');
  const [requireVerified, setRequireVerified] = useState(view?.requireVerifiedIdentity ?? false);
  const [identitySecret, setIdentitySecret] = useState('');
  const [messagesPerMinute, setMessagesPerMinute] = useState(view?.messagesPerMinute ?? 10);
  const [visitorsPerMinute, setVisitorsPerMinute] = useState(view?.newVisitorsPerIpPerMinute ?? 20);
  const [maxLength, setMaxLength] = useState(view?.maxMessageLength ?? 2000);
  const [preChat, setPreChat] = useState<PreChatForm>(view?.preChatForm ?? { enabled: false, name: 'optional', email: 'required' });
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (!view) return null;

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setStatus(null);
    const widget: WidgetSettingsInput = {
      allowedOrigins: origins.split(/\s+/).map((origin) => origin.trim().replace(/\/+$/, '')).filter(Boolean),
      title,
      color,
      position,
      launcherText,
      greeting,
      requireVerifiedIdentity: requireVerified,
      messagesPerMinute,
      newVisitorsPerIpPerMinute: visitorsPerMinute,
      maxMessageLength: maxLength,
      preChatForm: preChat,
    };
    if (identitySecret) widget.identitySecret = identitySecret;
    try {
      onSaved(await api<Channel>('PUT', path, { body: { widget } }));
      setIdentitySecret('');
      setStatus(t('Saved'));
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <form class="card" aria-label="Chat widget" onSubmit={save}>
      <h2>{t('Chat widget')}</h2>
      <p class="muted small">{t('Paste this tag into the pages of your site:')}</p>
      <pre aria-label="Widget snippet">{view.snippet}</pre>
      <Field label={t('Allowed origins (one per line)')}>
        <textarea aria-label="Allowed origins" rows={3} value={origins} placeholder="https://shop.example" onInput={(e) => setOrigins(e.currentTarget.value)} />
      </Field>
      <div class="row wrap">
        <Field label={t('Title')}>
          <input aria-label="Widget title" required maxLength={60} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </Field>
        <Field label={t('Colour')}>
          <input aria-label="Widget colour" type="color" value={color} onInput={(e) => setColor(e.currentTarget.value)} />
        </Field>
        <Field label={t('Position')}>
          <select aria-label="Widget position" value={position} onChange={(e) => setPosition(e.currentTarget.value === 'left' ? 'left' : 'right')}>
            <option value="right">{t('Bottom right')}</option>
            <option value="left">{t('Bottom left')}</option>
          </select>
        </Field>
        <Field label={t('Launcher text')}>
          <input aria-label="Launcher text" required maxLength={40} value={launcherText} onInput={(e) => setLauncherText(e.currentTarget.value)} />
        </Field>
      </div>
      <Field label={t('Widget greeting')}>
        <textarea aria-label="Widget greeting" rows={2} maxLength={1000} value={greeting} onInput={(e) => setGreeting(e.currentTarget.value)} />
      </Field>
      <label class="check">
        <input type="checkbox" aria-label="Require verified identity" checked={requireVerified} onChange={(e) => setRequireVerified(e.currentTarget.checked)} />
        {t('Require verified identity')}
      </label>
      <Field label={`${t('Identity secret')} (${view.identitySecretSet ? t('set; type to replace') : t('not set')})`}>
        <input aria-label="Identity secret" type="password" autocomplete="off" minLength={16} value={identitySecret} onInput={(e) => setIdentitySecret(e.currentTarget.value)} />
      </Field>
      <label class="check">
        <input type="checkbox" aria-label="Pre-chat form" checked={preChat.enabled} onChange={(e) => setPreChat({ ...preChat, enabled: e.currentTarget.checked })} />
        {t('Pre-chat form: ask for name and e-mail before the first message')}
      </label>
      {preChat.enabled && (
        <div class="row wrap">
          {(['name', 'email'] as const).map((field) => (
            <Field key={field} label={field === 'name' ? t('Name field') : t('Email field')}>
              <select
                aria-label={field === 'name' ? 'Name field' : 'Email field'}
                value={preChat[field]}
                onChange={(e) => setPreChat({ ...preChat, [field]: e.currentTarget.value === 'required' ? 'required' : 'optional' })}
              >
                <option value="required">{t('Required')}</option>
                <option value="optional">{t('Optional')}</option>
              </select>
            </Field>
          ))}
        </div>
      )}
      <div class="row wrap">
        <Field label={t('Messages per visitor per minute')}>
          <input aria-label="Messages per minute" type="number" min={1} value={messagesPerMinute} onInput={(e) => setMessagesPerMinute(Number(e.currentTarget.value))} />
        </Field>
        <Field label={t('New visitors per address per minute')}>
          <input aria-label="New visitors per minute" type="number" min={1} value={visitorsPerMinute} onInput={(e) => setVisitorsPerMinute(Number(e.currentTarget.value))} />
        </Field>
        <Field label={t('Longest message')}>
          <input aria-label="Longest message" type="number" min={1} value={maxLength} onInput={(e) => setMaxLength(Number(e.currentTarget.value))} />
        </Field>
      </div>
      <button type="submit" aria-label="Save widget">
        {t('Save')}
      </button>
      <ErrorLine error={error} />
      <StatusLine text={status} />
    </form>
  );
}

/** A messenger channel: where the messenger posts (and Meta's verify token), and what it last refused. */
function MessengerHelp({ channel }: { channel: Channel }) {
  return (
    <section class="card" aria-label="Messenger connection">
      {channel.inboundUrl && (
        <p>
          {t('Inbound URL')}: <code aria-label="Inbound URL">{channel.inboundUrl}</code>
        </p>
      )}
      {channel.verifyToken && (
        <p>
          {t('Verify token')}: <code aria-label="Verify token">{channel.verifyToken}</code>
        </p>
      )}
      {channel.type === 'telegram' || channel.type === 'viber' ? <p class="muted small">{t('The webhook is registered with the messenger on connect.')}</p> : null}
      {channel.connectorError ? (
        <p role="alert" class="error">
          {t('Last messenger error')} ({formatTime(channel.connectorError.at)}): {channel.connectorError.message}
        </p>
      ) : (
        <p class="muted small">{t('No messenger errors')}</p>
      )}
    </section>
  );
}

function TryAgent({ channel }: { channel: Channel }) {
  const [text, setText] = useState('');
  const [reply, setReply] = useState<string | null>(null);
  const [passages, setPassages] = useState<GivenPassage[]>([]);
  const { busy, error, run } = useAction();
  const ask = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const result = await api<{ reply: string | null; taskComplete: boolean; passages: GivenPassage[] }>('POST', `/chat/test/${encodeURIComponent(channel.id)}/`, {
        body: { text },
      });
      setReply(result.reply ?? '—');
      setPassages(result.passages);
    });
  };
  return (
    <form class="card" aria-label="Try the agent" onSubmit={ask}>
      <h2>{t('Try the agent')}</h2>
      <Field label={t('Message to the agent')}>
        <input aria-label="Message to the agent" required value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </Field>
      <button type="submit" aria-label="Ask" disabled={busy}>
        {t('Ask')}
      </button>
      <ErrorLine error={error} />
      {reply !== null && (
        <p class="bubble assistant" aria-label="Agent reply">
          {reply}
        </p>
      )}
      {reply !== null && passages.length > 0 && (
        <details class="passages" open>
          <summary>{t('Passages given to the agent')}</summary>
          {/* Document text as text nodes, never as HTML. */}
          <ol aria-label="Passages given to the agent">
            {passages.map((passage, i) => (
              <li key={i}>
                <p class="muted small">{[passage.document, ...passage.headingPath].join(' › ')}</p>
                <p class="text">{passage.text}</p>
              </li>
            ))}
          </ol>
        </details>
      )}
    </form>
  );
}

/** What a part of the settings form needs: the draft it edits and how to change it. */
interface DraftFieldsProps {
  draft: Draft;
  set: (changes: Partial<Draft>) => void;
}

/** Who the agent is: the channel's name, whether the agent answers, and what it is told about its role. */
function AgentFields({ draft, set }: DraftFieldsProps) {
  return (
    <>
      <Field label={t('Name')}>
        <input aria-label="Name" required maxLength={100} value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
      </Field>
      <label class="check">
        <input type="checkbox" aria-label="Agent on" checked={draft.isActive} onChange={(e) => set({ isActive: e.currentTarget.checked })} />
        <span>{t('Agent on')}</span>
      </label>
      <Field label={t('Role')}>
        <input aria-label="Role" maxLength={1000} value={draft.role} onInput={(e) => set({ role: e.currentTarget.value })} />
      </Field>
      <Field label={t('Behavior')}>
        <textarea aria-label="Behavior" rows={3} maxLength={4000} value={draft.behavior} onInput={(e) => set({ behavior: e.currentTarget.value })} />
      </Field>
      <Field label={t('Task')}>
        <textarea aria-label="Task" rows={2} maxLength={2000} value={draft.task} onInput={(e) => set({ task: e.currentTarget.value })} />
      </Field>
      <Field label={t('Greeting')}>
        <input aria-label="Greeting" maxLength={1000} value={draft.greeting} onInput={(e) => set({ greeting: e.currentTarget.value })} />
      </Field>
      <Field label={t('Agent language')}>
        <input aria-label="Agent language" maxLength={16} value={draft.aiLang} onInput={(e) => set({ aiLang: e.currentTarget.value })} />
      </Field>
    </>
  );
}

/** Which engine answers, and its own settings: the knowledge base's threshold or the model's address and key. */
function EngineFields({ channel, draft, set }: DraftFieldsProps & { channel: Channel }) {
  return (
    <>
      <Field label={t('Engine')}>
        <select aria-label="Engine" value={draft.engine} onChange={(e) => set({ engine: e.currentTarget.value as Draft['engine'] })}>
          <option value="knowledge-base">Knowledge base</option>
          <option value="openai-compatible">OpenAI-compatible</option>
        </select>
      </Field>
      {draft.engine === 'knowledge-base' && (
        <Field label={t('Answer threshold')}>
          <input
            aria-label="Answer threshold"
            type="number"
            min="0"
            max="1"
            step="0.01"
            placeholder={t('default')}
            value={draft.answerThreshold}
            onInput={(e) => set({ answerThreshold: e.currentTarget.value })}
          />
        </Field>
      )}
      {draft.engine === 'openai-compatible' && (
        <>
          <Field label={t('Base URL')}>
            <input aria-label="Base URL" type="url" required placeholder="https://api.openai.com/v1" value={draft.baseUrl} onInput={(e) => set({ baseUrl: e.currentTarget.value })} />
          </Field>
          <Field label={t('Model')}>
            <input aria-label="Model" required value={draft.model} onInput={(e) => set({ model: e.currentTarget.value })} />
          </Field>
          <Field label={t('API key')}>
            <input
              aria-label="API key"
              type="password"
              autocomplete="off"
              placeholder={channel.agentEngine.kind === 'openai-compatible' && channel.agentEngine.apiKeySet ? t('a key is stored') : t('written, never shown')}
              value={draft.apiKey}
              onInput={(e) => set({ apiKey: e.currentTarget.value })}
            />
          </Field>
        </>
      )}
    </>
  );
}

/** When the agent works: a time zone and the intervals of each day; outside them the auto-reply answers. */
function WorkingHoursFields({ draft, set }: DraftFieldsProps) {
  return (
    <fieldset>
      <legend>
        <label class="check">
          <input type="checkbox" aria-label="Working hours" checked={draft.hoursOn} onChange={(e) => set({ hoursOn: e.currentTarget.checked })} />
          <span>{t('Working hours')}</span>
        </label>
      </legend>
      {draft.hoursOn && (
        <>
          <Field label={t('Time zone')}>
            <input aria-label="Time zone" value={draft.timeZone} onInput={(e) => set({ timeZone: e.currentTarget.value })} />
          </Field>
          {draft.intervals.map((interval, index) => (
            <div class="row" key={index}>
              <select
                aria-label={`Day ${index + 1}`}
                value={interval.day}
                onChange={(e) => set({ intervals: draft.intervals.map((it, i) => (i === index ? { ...it, day: e.currentTarget.value as Weekday } : it)) })}
              >
                {DAYS.map((day) => (
                  <option key={day} value={day}>
                    {day}
                  </option>
                ))}
              </select>
              <input
                aria-label={`From ${index + 1}`}
                pattern="[0-2][0-9]:[0-5][0-9]"
                value={interval.from}
                onInput={(e) => set({ intervals: draft.intervals.map((it, i) => (i === index ? { ...it, from: e.currentTarget.value } : it)) })}
              />
              <input
                aria-label={`To ${index + 1}`}
                pattern="[0-2][0-9]:[0-5][0-9]"
                value={interval.to}
                onInput={(e) => set({ intervals: draft.intervals.map((it, i) => (i === index ? { ...it, to: e.currentTarget.value } : it)) })}
              />
              <button type="button" onClick={() => set({ intervals: draft.intervals.filter((_, i) => i !== index) })}>
                {t('Remove')}
              </button>
            </div>
          ))}
          <button type="button" onClick={() => set({ intervals: [...draft.intervals, { day: 'mon', from: '09:00', to: '18:00' }] })}>
            {t('Add interval')}
          </button>
        </>
      )}
    </fieldset>
  );
}

/** Where events of the channel are posted, and the secret they are signed with. */
function WebhookFields({ channel, draft, set }: DraftFieldsProps & { channel: Channel }) {
  return (
    <>
      <Field label={t('Webhook URL')}>
        <input aria-label="Webhook URL" type="url" value={draft.webhookUrl} onInput={(e) => set({ webhookUrl: e.currentTarget.value })} />
      </Field>
      <Field label={t('Signing secret')}>
        <input
          aria-label="Signing secret"
          type="password"
          autocomplete="off"
          minLength={16}
          placeholder={channel.webhookSecretSet ? t('a key is stored') : t('written, never shown')}
          value={draft.webhookSecret}
          onInput={(e) => set({ webhookSecret: e.currentTarget.value })}
        />
      </Field>
    </>
  );
}

/** The messenger's own credentials, written and never shown; a stored set shows only as a placeholder. */
function CredentialFields({ channel, draft, set }: DraftFieldsProps & { channel: Channel }) {
  const credentialFields = CREDENTIAL_FIELDS[channel.type] ?? [];
  return (
    <>
      {credentialFields.map((field) => (
        <Field label={field.label} key={field.key}>
          <input
            type={field.secret ? 'password' : 'text'}
            autocomplete="off"
            placeholder={channel.credentialsSet ? t('a key is stored') : ''}
            value={draft.credentials[field.key] ?? ''}
            onInput={(e) => set({ credentials: { ...draft.credentials, [field.key]: e.currentTarget.value } })}
          />
        </Field>
      ))}
    </>
  );
}

/**
 * Sends a test event to the channel's webhook and shows what the receiver answered. Sending clears the settings
 * form's error line, as every other action of the page does.
 */
function TestEventCard({ type, id, clearError }: { type: string; id: string; clearError: () => void }) {
  const [testResult, setTestResult] = useState<string | null>(null);
  const sendTest = async () => {
    setTestResult(null);
    clearError();
    try {
      const result = await api<{ success: boolean; status: number | null; error?: string }>('POST', `/webhooks/${type}/${encodeURIComponent(id)}/test`);
      setTestResult(result.status === null ? `${t('No answer from the receiver')}${result.error ? `: ${result.error}` : ''}` : `${t('Receiver answered HTTP')} ${result.status}`);
    } catch (failure) {
      setTestResult(errorText(failure));
    }
  };

  return (
    <div class="card">
      <button type="button" aria-label="Send test event" onClick={sendTest}>
        {t('Send test event')}
      </button>
      <p class="result" aria-label="Test event result" aria-live="polite">
        {testResult ?? ''}
      </p>
    </div>
  );
}

/** Deleting the channel asks first; a failure shows on the settings form's error line. */
function DeleteChannelCard({ path, onError }: { path: string; onError: (error: string) => void }) {
  const [confirmDelete, setConfirmDelete] = useState(false);
  const remove = async () => {
    try {
      await api('DELETE', path);
      navigate('/channels');
    } catch (failure) {
      onError(errorText(failure));
    }
  };

  return (
    <div class="card danger">
      {confirmDelete ? (
        <div class="row">
          <span>{t('Delete this channel and all its chats?')}</span>
          <button type="button" aria-label="Delete" onClick={remove}>
            {t('Delete')}
          </button>
          <button type="button" aria-label="Cancel" onClick={() => setConfirmDelete(false)}>
            {t('Cancel')}
          </button>
        </div>
      ) : (
        <button type="button" aria-label="Delete channel" onClick={() => setConfirmDelete(true)}>
          {t('Delete channel')}
        </button>
      )}
    </div>
  );
}

export function ChannelPage({ type, id }: { type: string; id: string }) {
  const [channel, setChannel] = useState<Channel | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [bases, setBases] = useState<KnowledgeBase[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const path = `/channel/${type}/${encodeURIComponent(id)}/`;

  useEffect(() => {
    api<Channel>('GET', path).then(
      (c) => {
        setChannel(c);
        setDraft(draftOf(c));
      },
      (e) => setError(errorText(e)),
    );
    api<{ knowledgeBases: KnowledgeBase[] }>('GET', '/knowledge-bases').then((r) => setBases(r.knowledgeBases), () => undefined);
  }, [path]);

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

  const toggleResponses = async (disabled: boolean) => {
    setError(null);
    try {
      const saved = await api<Channel>('PUT', path, { body: { disableAgentResponses: disabled } });
      setChannel(saved);
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
      {channel.type === 'custom' && <ApiChannelHelp channel={channel} />}
      {channel.type === 'widget' && <WidgetSettingsForm channel={channel} path={path} onSaved={setChannel} />}
      {channel.inboundUrl !== null && <MessengerHelp channel={channel} />}

      <div class="card row">
        <label class="check">
          <input
            type="checkbox"
            aria-label="Disable agent responses"
            checked={channel.disableAgentResponses}
            onChange={(e) => toggleResponses(e.currentTarget.checked)}
          />
          <span>{t('Disable agent responses')}</span>
        </label>
      </div>

      <form class="card grid" aria-label="Channel settings" onSubmit={save}>
        <AgentFields draft={draft} set={set} />
        <EngineFields channel={channel} draft={draft} set={set} />
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
        <WorkingHoursFields draft={draft} set={set} />
        <Field label={t('Auto-reply')}>
          <textarea aria-label="Auto-reply" rows={2} maxLength={2000} value={draft.autoReply} onInput={(e) => set({ autoReply: e.currentTarget.value })} />
        </Field>
        <Field label={t('Handoff message')}>
          <textarea
            aria-label="Handoff message"
            rows={2}
            maxLength={2000}
            placeholder={t("Empty: a default sentence in the agent's language")}
            value={draft.handoffMessage}
            onInput={(e) => set({ handoffMessage: e.currentTarget.value })}
          />
        </Field>
        <Field label={t('Hand over after this many fallbacks in a row (0: never)')}>
          <input
            aria-label="Handoff after fallbacks"
            type="number"
            min={0}
            max={10}
            step={1}
            value={draft.handoffAfterFallbacks}
            onInput={(e) => set({ handoffAfterFallbacks: Number(e.currentTarget.value) })}
          />
        </Field>
        <WebhookFields channel={channel} draft={draft} set={set} />
        <CredentialFields channel={channel} draft={draft} set={set} />
        <ErrorLine error={error} />
        <div class="row">
          <button type="submit" aria-label="Save">
            {t('Save')}
          </button>
          <StatusLine text={status} />
        </div>
      </form>

      <TestEventCard type={type} id={id} clearError={() => setError(null)} />

      <TryAgent channel={channel} />

      <DeleteChannelCard path={path} onError={setError} />
    </section>
  );
}
