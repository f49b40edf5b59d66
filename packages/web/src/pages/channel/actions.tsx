// What the channel page does besides saving its form: send a test event, try the agent, delete the channel.
import { useState } from 'preact/hooks';
import type { Channel, GivenPassage } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { useAction } from '../../use-action.ts';
import { t } from '../../i18n.ts';
import { navigate } from '../../router.ts';
import { ErrorLine, Field } from '../../ui.tsx';

export function TryAgent({ channel }: { channel: Channel }) {
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
