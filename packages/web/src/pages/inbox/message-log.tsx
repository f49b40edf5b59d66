// A chat's history: messages (with their attachments and the agent's replies' rating actions), private notes, and the
// agent's action runs (a line for the team: the customer never sees them).
import type { Ref } from 'preact';
import { useState } from 'preact/hooks';
import type { InboxAction, InboxChat, InboxMessage, InboxNote, InboxSummary } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { ErrorLine, formatTime, Link } from '../../ui.tsx';
import { OUTCOME_LABELS } from '../actions/use-actions.ts';

function Attachments({ message }: { message: InboxMessage }) {
  if (message.attachments.length === 0) return null;
  return (
    <div class="attachments">
      {message.attachments.map((file) => {
        if (file.contentType.startsWith('image/')) {
          return (
            <a key={file.url} href={file.url} target="_blank" rel="noopener noreferrer">
              <img src={file.url} alt={file.name} loading="lazy" />
            </a>
          );
        }
        if (file.contentType.startsWith('audio/')) return <audio key={file.url} controls src={file.url} aria-label={file.name} />;
        return (
          <a key={file.url} href={file.url} target="_blank" rel="noopener noreferrer" download={file.name}>
            {file.name}
          </a>
        );
      })}
    </div>
  );
}

function AgentReplyActions({ message, onRated }: { message: InboxMessage; onRated: () => void }) {
  const [correcting, setCorrecting] = useState(false);
  const [text, setText] = useState(message.text);
  const [error, setError] = useState<string | null>(null);
  if (message.rating === 'liked') return <span class="rating">{t('Marked correct')}</span>;
  if (message.rating === 'disliked') return <span class="rating">{t('Corrected')}</span>;

  const markCorrect = async () => {
    try {
      await api('POST', `/chat/answer/${message.id}/correct/`);
      onRated();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  const saveCorrection = async (event: Event) => {
    event.preventDefault();
    try {
      await api('POST', `/chat/answer/${message.id}/correction/`, { body: { text } });
      setCorrecting(false);
      onRated();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  return (
    <div class="reply-actions">
      {!correcting && (
        <>
          {/* A fallback is no answer to approve; correcting it teaches the answer the agent lacked. */}
          {message.agentOutcome === 'answered' && (
            <button type="button" class="small" aria-label="Mark correct" onClick={markCorrect}>
              {t('Mark correct')}
            </button>
          )}
          <button type="button" class="small" aria-label="Correct the answer" onClick={() => setCorrecting(true)}>
            {t('Correct the answer')}
          </button>
        </>
      )}
      {correcting && (
        <form onSubmit={saveCorrection}>
          <label class="field">
            <span>{t('Correct answer')}</span>
            <textarea aria-label="Correct answer" required rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <div class="row">
            <button type="submit" aria-label="Save to knowledge base">
              {t('Save to knowledge base')}
            </button>
            <button type="button" aria-label="Cancel" onClick={() => setCorrecting(false)}>
              {t('Cancel')}
            </button>
          </div>
        </form>
      )}
      <ErrorLine error={error} />
    </div>
  );
}

/** An action run: which action, how it ended, how long the call took, and what went wrong. */
function ActionLine({ run }: { run: InboxAction }) {
  const facts = [t(OUTCOME_LABELS[run.outcome]), run.status === null ? '' : `HTTP ${run.status}`, run.ms === null ? '' : `${run.ms} ms`].filter(Boolean);
  return (
    <li class="bubble action-run" aria-label={`Action ${run.action.name}`}>
      <div class="meta">
        {t('Action')} · <Link href={`/actions/${run.action.id}`}>{run.action.name}</Link> · {formatTime(run.createdAt)}
      </div>
      <div class="text">{facts.join(' · ')}</div>
      {run.error && <div class="text action-error">{run.error}</div>}
    </li>
  );
}

function senderOf(message: InboxMessage, chat: InboxChat): string {
  if (message.role === 'user') return message.senderName ?? chat.dialogName;
  return message.senderName ?? t('Agent');
}

/**
 * The history: messages, private notes and action runs in order (a handoff's summary is pinned above it by the chat
 * view instead). The chat view holds `logRef` because it scrolls the log to
 * the newest entry when their number changes.
 */
export function MessageLog(props: {
  chat: InboxChat;
  messages: (InboxMessage | InboxNote | InboxSummary | InboxAction)[];
  logRef: Ref<HTMLOListElement>;
  onRated: () => void;
  /** The message or note a search hit opened the chat at: marked (`aria-current`). */
  foundId?: string | undefined;
}) {
  const { chat, messages, logRef, onRated, foundId } = props;
  const found = (id: string) => (id === foundId ? { 'aria-current': 'true' as const } : {});
  return (
    <ol class="messages" role="log" aria-label="Messages" ref={logRef}>
      {messages.map((message) =>
        message.kind === 'action' ? (
          <ActionLine key={message.id} run={message} />
        ) : message.kind === 'summary' ? null : message.kind === 'note' ? (
          <li key={message.id} data-id={message.id} class={`bubble note${message.id === foundId ? ' found' : ''}`} aria-label={`Note by ${message.author.name}`} {...found(message.id)}>
            <div class="meta">
              {t('Private note')} · {message.author.name} · {formatTime(message.createdAt)}
            </div>
            <div class="text">{message.text}</div>
          </li>
        ) : (
          <li key={message.id} data-id={message.id} class={`bubble ${message.role}${message.id === foundId ? ' found' : ''}`} {...found(message.id)}>
            <div class="meta">
              {senderOf(message, chat)} · {formatTime(message.createdAt)}
            </div>
            <div class="text">{message.text}</div>
            <Attachments message={message} />
            {message.agentOutcome !== null && message.agentOutcome !== 'handoff' && <AgentReplyActions message={message} onRated={onRated} />}
          </li>
        ),
      )}
    </ol>
  );
}
