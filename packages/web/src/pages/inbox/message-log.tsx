// A chat's history: messages (with their attachments and the agent's replies' rating actions) and private notes.
import type { Ref } from 'preact';
import { useState } from 'preact/hooks';
import type { InboxChat, InboxMessage, InboxNote } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { ErrorLine, formatTime } from '../../ui.tsx';

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

function senderOf(message: InboxMessage, chat: InboxChat): string {
  if (message.role === 'user') return message.senderName ?? chat.dialogName;
  return message.senderName ?? t('Agent');
}

/**
 * The history: messages and private notes in order. The chat view holds `logRef` because it scrolls the log to
 * the newest entry when their number changes.
 */
export function MessageLog(props: { chat: InboxChat; messages: (InboxMessage | InboxNote)[]; logRef: Ref<HTMLOListElement>; onRated: () => void }) {
  const { chat, messages, logRef, onRated } = props;
  return (
    <ol class="messages" role="log" aria-label="Messages" ref={logRef}>
      {messages.map((message) =>
        message.kind === 'note' ? (
          <li key={message.id} class="bubble note" aria-label={`Note by ${message.author.name}`}>
            <div class="meta">
              {t('Private note')} · {message.author.name} · {formatTime(message.createdAt)}
            </div>
            <div class="text">{message.text}</div>
          </li>
        ) : (
          <li key={message.id} class={`bubble ${message.role}`}>
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
