// The visitor's conversations, when there is more than one: the open one is chosen here.
import type { WidgetConversation } from '@parley/contracts';

export function ConversationPicker(props: { conversations: WidgetConversation[]; conversationId: string | null; onPick: (id: string) => void }) {
  const { conversations, conversationId, onPick } = props;
  return (
    <select
      class="conversations"
      aria-label="Conversation"
      value={conversationId ?? ''}
      onChange={(event) => onPick((event.target as HTMLSelectElement).value)}
    >
      {conversations.map((conversation, index) => (
        <option key={conversation.id} value={conversation.id}>
          {`#${index + 1} · ${new Date(conversation.lastMessageAt ?? conversation.createdAt).toLocaleString()}${
            conversation.lastText ? ` · ${conversation.lastText.slice(0, 40)}` : ''
          }`}
        </option>
      ))}
    </select>
  );
}
