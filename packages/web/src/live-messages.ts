// What the console's live stream (`GET /console/v1/live`) says, parsed: no DOM here, so the bench drives the same
// logic in Node (bench/scenarios/team-inbox.ts). Each event and change carries the chat as the Inbox's list shows it
// now and the account's `Needs a human` count, so open Inboxes patch their lists rather than reload them.
import type { InboxListChat } from '@parley/contracts';

/** The part of an event's webhook payload the team alerts read. */
export interface LivePayload {
  event?: string;
  messages?: { role?: string }[];
}

/**
 * `chat`: the chat now (null: it is gone; undefined: the server could not say, so views reload). `needsHumanCount`:
 * the account's count of chats needing a person after the change (undefined: not told).
 */
export type LiveMessage =
  | { kind: 'event'; chatId: string | null; payload: LivePayload | undefined; chat: InboxListChat | null | undefined; needsHumanCount: number | undefined }
  | { kind: 'change'; chatId: string | null; chat: InboxListChat | null | undefined; needsHumanCount: number | undefined }
  /** Events may have been missed (a gap, or a new stream that did not resume): views reload what they show. */
  | { kind: 'reload' }
  /** The stream dropped (the server ends a member's streams when their access changes); the browser reconnects. */
  | { kind: 'dropped' };

interface LiveData {
  chatId?: unknown;
  payload?: unknown;
  chat?: unknown;
  needsHumanCount?: unknown;
  resumed?: unknown;
}

/** A message of the stream by its SSE event name and data; undefined for a name it does not know. */
export function parseLiveMessage(name: string, data: string): LiveMessage | undefined {
  let parsed: LiveData;
  try {
    parsed = JSON.parse(data) as LiveData;
  } catch {
    parsed = {};
  }
  // A stream that resumed where the last one stopped got what it missed just before: nothing to reload.
  if (name === 'gap' || (name === 'ready' && parsed.resumed !== true)) return { kind: 'reload' };
  if (name !== 'event' && name !== 'change') return undefined;
  const chatId = typeof parsed.chatId === 'string' ? parsed.chatId : null;
  const chat = parsed.chat === null ? null : typeof parsed.chat === 'object' && parsed.chat !== undefined ? (parsed.chat as InboxListChat) : undefined;
  const needsHumanCount = typeof parsed.needsHumanCount === 'number' ? parsed.needsHumanCount : undefined;
  if (name === 'change') return { kind: 'change', chatId, chat, needsHumanCount };
  const payload = typeof parsed.payload === 'object' && parsed.payload !== null ? (parsed.payload as LivePayload) : undefined;
  return { kind: 'event', chatId, payload, chat, needsHumanCount };
}
