// The chat view's two forms: the private note, and the reply with its saved-reply picker.
import type { Ref } from 'preact';
import type { CannedResponse } from '@parley/contracts';
import { t } from '../../i18n.ts';

/** The `/word` being typed at the end of the reply, if any: what the saved-reply picker matches. */
function shortCodeTyped(reply: string): string | undefined {
  return /(?:^|\s)\/([A-Za-z0-9_-]*)$/.exec(reply)?.[1];
}

/** The saved replies whose short code starts with what is typed after `/`: a listbox of options to insert. */
function SavedReplyPicker({ replies, typed, onPick }: { replies: CannedResponse[]; typed: string; onPick: (reply: CannedResponse) => void }) {
  const matching = replies.filter((reply) => reply.shortCode.toLowerCase().startsWith(typed.toLowerCase()));
  if (matching.length === 0) return null;
  return (
    <ul class="picker" role="listbox" aria-label="Saved replies">
      {matching.map((reply) => (
        <li
          key={reply.id}
          role="option"
          aria-selected="false"
          aria-label={`/${reply.shortCode}`}
          tabIndex={0}
          onClick={() => onPick(reply)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              onPick(reply);
            }
          }}
        >
          <strong>/{reply.shortCode}</strong> <span class="muted">{reply.text}</span>
        </li>
      ))}
    </ul>
  );
}

/** The private-note form; its draft is kept by the chat view, which focuses it (`inputRef`) for the `n` key. */
export function NoteComposer(props: { note: string; onInput: (note: string) => void; onSubmit: (event: Event) => void; inputRef?: Ref<HTMLTextAreaElement> }) {
  const { note, onInput, onSubmit, inputRef } = props;
  return (
    <form class="composer note-composer" onSubmit={onSubmit}>
      <textarea ref={inputRef} aria-label="Note" placeholder={t('Private note: only the team sees it')} rows={1} maxLength={10_000} value={note} onInput={(e) => onInput(e.currentTarget.value)} />
      <button type="submit" aria-label="Add note">
        {t('Add note')}
      </button>
    </form>
  );
}

/**
 * The reply form, and the saved-reply picker above it while a `/shortCode` is being typed; the draft is kept by
 * the chat view, which focuses it (`inputRef`) for the `r` key. Ctrl+Enter (Cmd+Enter) sends.
 */
export function ReplyComposer(props: {
  reply: string;
  setReply: (reply: string) => void;
  savedReplies: CannedResponse[];
  sending: boolean;
  onSend: (event: Event) => void;
  inputRef?: Ref<HTMLTextAreaElement>;
}) {
  const { reply, setReply, savedReplies, sending, onSend, inputRef } = props;
  const pickSavedReply = (saved: CannedResponse) => {
    setReply(reply.replace(/\/[A-Za-z0-9_-]*$/, saved.text));
  };
  const typedCode = shortCodeTyped(reply);
  return (
    <>
      {typedCode !== undefined && <SavedReplyPicker replies={savedReplies} typed={typedCode} onPick={pickSavedReply} />}
      <form class="composer" onSubmit={onSend}>
        <textarea
          ref={inputRef}
          aria-label="Reply"
          placeholder={t('Reply')}
          rows={2}
          value={reply}
          onInput={(e) => setReply(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) onSend(e);
          }}
        />
        <button type="submit" aria-label="Send" disabled={sending}>
          {t('Send')}
        </button>
      </form>
    </>
  );
}
