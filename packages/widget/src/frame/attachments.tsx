// Files: a message's attachments as links, and the composer's file picker.
import type { WidgetMessage } from '@parley/contracts';
import type { Ref } from 'preact';
import { formatSize } from './messages.ts';

export function AttachmentLinks({ message }: { message: WidgetMessage }) {
  return (
    <>
      {message.attachments.map((file) => (
        <a key={file.url} href={file.url} target="_blank" rel="noopener noreferrer" class="attachment">
          {file.name} ({formatSize(file.fileSize)})
        </a>
      ))}
    </>
  );
}

export function AttachButton({ files, fileRef, onPick }: { files: File[]; fileRef: Ref<HTMLInputElement>; onPick: (files: File[]) => void }) {
  return (
    <label class="attach">
      <input
        type="file"
        multiple
        aria-label="Attach files"
        ref={fileRef}
        onChange={(event) => onPick(Array.from((event.target as HTMLInputElement).files ?? []))}
      />
      {files.length > 0 ? `${files.length} file${files.length > 1 ? 's' : ''}` : 'Attach'}
    </label>
  );
}
