// The frame's header: the chat's title, New conversation (once there is a session) and Close chat.
import type { Ref } from 'preact';
import { toHost } from './host.ts';

export function ChatHeader(props: { title: string; canStartNew: boolean; onNew: () => void; closeRef: Ref<HTMLButtonElement> }) {
  const { title, canStartNew, onNew, closeRef } = props;
  return (
    <header class="chat-header">
      <h1>{title}</h1>
      {canStartNew ? (
        <button type="button" class="new" aria-label="New conversation" title="New conversation" onClick={onNew}>
          +
        </button>
      ) : null}
      <button type="button" class="close" aria-label="Close chat" ref={closeRef} onClick={() => toHost({ parley: 1, type: 'close' })}>
        ×
      </button>
    </header>
  );
}
