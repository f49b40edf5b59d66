// The conversation's messages as the frame shows them: merged in time order, their authors and file sizes.
import type { WidgetMessage } from '@parley/contracts';

export type Status = 'starting' | 'connecting' | 'live' | 'reconnecting';

export const TYPING_MAX_MS = 60_000;
export const AGENT_NAME = 'AI assistant';

/** Messages by id, in time order: history, live frames and send answers may repeat one another. */
export function merge(list: WidgetMessage[], incoming: readonly WidgetMessage[]): WidgetMessage[] {
  const byId = new Map(list.map((message) => [message.id, message]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
}

export function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} kB`;
}

/** Who wrote a message, as the visitor sees it above it. */
export function authorOf(message: WidgetMessage): string {
  if (message.from === 'visitor') return 'You';
  if (message.from === 'agent') return AGENT_NAME;
  return message.name ?? 'Team';
}
