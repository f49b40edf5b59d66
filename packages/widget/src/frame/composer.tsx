// The message box, the file picker and Send; Enter sends, Shift+Enter starts a new line.
import type { Ref } from 'preact';
import { AttachButton } from './attachments.tsx';

export function Composer(props: {
  draft: string;
  files: File[];
  disabled: boolean;
  sendDisabled: boolean;
  inputRef: Ref<HTMLTextAreaElement>;
  fileRef: Ref<HTMLInputElement>;
  onDraft: (draft: string) => void;
  onFiles: (files: File[]) => void;
  onSubmit: (event?: Event) => Promise<void>;
}) {
  const { draft, files, disabled, sendDisabled, inputRef, fileRef, onDraft, onFiles, onSubmit } = props;
  return (
    <form class="composer" onSubmit={onSubmit}>
      <textarea
        aria-label="Message"
        placeholder="Type a message…"
        rows={2}
        ref={inputRef}
        value={draft}
        disabled={disabled}
        onInput={(event) => onDraft((event.target as HTMLTextAreaElement).value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey) void onSubmit(event);
        }}
      />
      <div class="actions">
        <AttachButton files={files} fileRef={fileRef} onPick={onFiles} />
        <button type="submit" disabled={sendDisabled}>
          Send
        </button>
      </div>
    </form>
  );
}
