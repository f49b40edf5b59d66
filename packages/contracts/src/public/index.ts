import { chatRoutes } from './chats.ts';
import { eventRoutes } from './events.ts';
import { feedbackRoutes } from './feedback.ts';
import { messageRoutes } from './messages.ts';
import { tagRoutes } from './tags.ts';

export * from './channel-kinds.ts';
export * from './chats.ts';
export * from './events.ts';
export * from './feedback.ts';
export * from './headers.ts';
export * from './messages.ts';
export * from './scopes.ts';
export * from './sender.ts';
export * from './tags.ts';

/** Every route of the public chat-agent API (`/api/v1`), the spec's area A. */
export const publicRoutes = { ...chatRoutes, ...tagRoutes, ...messageRoutes, ...feedbackRoutes, ...eventRoutes } as const;
