/** API key scopes (docs/architecture.md, Operator API): which endpoint needs which. */
export const SCOPES = ['chats:read', 'chats:write', 'tags', 'messages', 'feedback', 'events:read'] as const;
export type Scope = (typeof SCOPES)[number];
