// The conversation's log: the greeting, then each message with its author (when it changes), text, attachments and,
// on the last one, the choices the agent offers as buttons; then what follows the conversation (the CSAT question),
// so it scrolls with the messages instead of covering them.
import type { WidgetMessage } from '@parley/contracts';
import type { ComponentChildren, Ref } from 'preact';
import { AttachmentLinks } from './attachments.tsx';
import { authorOf } from './messages.ts';

export function MessageLog(props: {
  greeting: string | undefined;
  messages: WidgetMessage[];
  sending: boolean;
  logRef: Ref<HTMLDivElement>;
  onChoice: (label: string) => void;
  children?: ComponentChildren;
}) {
  const { greeting, messages, sending, logRef, onChoice, children } = props;
  return (
    <div class="log" role="log" aria-label="Conversation" aria-live="polite" ref={logRef}>
      {greeting ? <p class="message from-agent greeting">{greeting}</p> : null}
      {messages.map((message, index) => (
        <div key={message.id} class={`message from-${message.from}`} data-message-id={message.id}>
          {message.from !== 'visitor' && (index === 0 || authorOf(messages[index - 1] as WidgetMessage) !== authorOf(message)) ? (
            <span class="author">{authorOf(message)}</span>
          ) : null}
          {message.text ? <p>{message.text}</p> : null}
          <AttachmentLinks message={message} />
          {message.choices && index === messages.length - 1 ? (
            <div class="choices">
              {message.choices.map((label) => (
                <button key={label} type="button" disabled={sending} onClick={() => onChoice(label)}>
                  {label}
                </button>
              ))}
            </div>
          ) : null}
        </div>
      ))}
      {children}
    </div>
  );
}
