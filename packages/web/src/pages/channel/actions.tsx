// What the channel page does besides saving its form: send a test event, try the agent, delete the channel.
import { useState } from 'preact/hooks';
import type { Channel, GivenPassage } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { useAction } from '../../use-action.ts';
import { t } from '../../i18n.ts';
import { navigate } from '../../router.ts';
import { ErrorLine, Field } from '../../ui.tsx';

interface TestReply {
  reply: string | null;
  taskComplete: boolean;
  passages: GivenPassage[];
  /** A clarification's options: their labels, then the last line's (something else). */
  choices?: string[];
}

export function TryAgent({ channel }: { channel: Channel }) {
  const [text, setText] = useState('');
  const [reply, setReply] = useState<string | null>(null);
  const [passages, setPassages] = useState<GivenPassage[]>([]);
  /** The clarification the last reply offered: the question it was for and its options. */
  const [offered, setOffered] = useState<{ question: string; choices: string[] } | null>(null);
  /** The option the tester picked last (shown above the answer to it). */
  const [picked, setPicked] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const send = (message: string, clarifiedQuestion?: string) =>
    run(async () => {
      const result = await api<TestReply>('POST', `/chat/test/${encodeURIComponent(channel.id)}/`, {
        body: clarifiedQuestion === undefined ? { text: message } : { text: message, clarifiedQuestion },
      });
      setReply(result.reply ?? '—');
      setPassages(result.passages);
      setOffered(result.choices && result.choices.length > 0 ? { question: clarifiedQuestion ?? message, choices: result.choices } : null);
    });
  const ask = async (event: Event) => {
    event.preventDefault();
    setPicked(null);
    // With a clarification open, the message answers it (a number, a label, or a new question), as in a chat.
    await send(text, offered?.question);
  };
  /** A click on an option sends its number, as a customer would type it (the last line, something else, is `0`). */
  const pick = async (index: number, label: string) => {
    if (!offered) return;
    const last = index === offered.choices.length - 1;
    setPicked(label);
    await send(last ? '0' : String(index + 1), offered.question);
  };
  // The reply's text without its numbered lines when the buttons show them.
  const shown = offered && reply !== null ? reply.split('\n').slice(0, -offered.choices.length).join('\n') || reply : reply;
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
      {picked !== null && (
        <p class="bubble user" aria-label="Your pick">
          {picked}
        </p>
      )}
      {reply !== null && (
        <p class="bubble assistant" aria-label="Agent reply">
          {shown}
        </p>
      )}
      {offered && (
        <div class="row choices" role="group" aria-label="Choices">
          {offered.choices.map((label, i) => (
            <button key={i} type="button" aria-label={label} disabled={busy} onClick={() => void pick(i, label)}>
              {i === offered.choices.length - 1 ? `0. ${label}` : `${i + 1}. ${label}`}
            </button>
          ))}
        </div>
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

export /**
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
export function DeleteChannelCard({ path, onError }: { path: string; onError: (error: string) => void }) {
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
