// The chat widget's visitor side (docs/architecture.md, Chat widget): sessions with a server-signed visitor token, identity
// verification, the visitor's messages through the one ingest path of customer messages, and the abuse limits.
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  DEFAULT_SENDER_NAME,
  MAX_FILE_BYTES,
  MAX_FILES,
  type StartSessionBody,
  type WidgetConversation,
  type WidgetMessage,
  type WidgetSession,
  type WidgetVisitorDetails,
} from '@parley/contracts';
import type { Database } from '../../db/client.ts';
import type { StoredWidgetSettings } from '../../db/schema.ts';
import { Errors } from '../../errors.ts';
import type { Upload } from '../../files/file-storage.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, newId } from '../../lib/ids.ts';
import { isOpen, nextOpenAt } from '../../agent/working-hours.ts';
import type { MessagesService } from '../../messages/messages-service.ts';
import type { MessageRow } from '../../messages/messages-store.ts';
import { widgetSettingsOf } from '../channels-service.ts';
import type { ChannelRow } from '../channels-store.ts';
import { normalizeOrigin } from './origins.ts';
import type { VisitorTokens } from './visitor-token.ts';
import type { ConversationRow, VisitorRow, WidgetStore } from './widget-store.ts';

const MINUTE_MS = 60_000;
/** Messages committed out of time-stamp order (concurrent transactions) are caught by reading this far back. */
export const RESUME_OVERLAP_MS = 5_000;
const HISTORY_LIMIT = 500;

/** A visitor request, authenticated: the channel and visitor its token names. */
export interface VisitorContext {
  channel: ChannelRow;
  settings: StoredWidgetSettings;
  visitor: VisitorRow;
}

export function toWidgetMessage(row: MessageRow): WidgetMessage {
  const from = row.role === 'user' ? 'visitor' : row.origin === 'team' || row.origin === 'api' ? 'team' : 'agent';
  return {
    id: row.id,
    role: row.role === 'user' ? 'user' : 'assistant',
    from,
    // A team member's name; never their e-mail (team replies were signed with it before members had names).
    name: from === 'team' && row.senderName && !row.senderName.includes('@') ? row.senderName : null,
    text: row.text,
    attachments: row.attachments.map(({ name, url, contentType, fileSize }) => ({ name, url, contentType, fileSize })),
    createdAt: row.createdAt.toISOString(),
  };
}

/** identifierHash = hex HMAC-SHA256 of identifier with the channel's identity secret. */
export function identifierHash(secret: string, identifier: string): string {
  return createHmac('sha256', secret).update(identifier).digest('hex');
}

function hashMatches(secret: string, identifier: string, given: string): boolean {
  const expected = Buffer.from(identifierHash(secret, identifier), 'hex');
  const actual = Buffer.from(given.toLowerCase(), 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The details the channel's pre-chat form requires that the visitor has not given (none when it is off). */
function missingDetails(settings: StoredWidgetSettings, visitor: Pick<VisitorRow, 'name' | 'email'>): string[] {
  const form = settings.preChatForm;
  if (!form.enabled) return [];
  return [
    ...(form.name === 'required' && !visitor.name ? ['name'] : []),
    ...(form.email === 'required' && !visitor.email ? ['email'] : []),
  ];
}

export interface WidgetServiceDeps {
  db: Database;
  store: WidgetStore;
  tokens: VisitorTokens;
  messages: Pick<MessagesService, 'receiveCustomerMessage'>;
  clock: Clock;
  /** A non-reversible key of a client address (abuse limit per address). */
  ipKey: (ip: string) => string;
}

export function createWidgetService({ store, tokens, messages, clock, ipKey }: WidgetServiceDeps) {
  function originAllowed(settings: StoredWidgetSettings, origin: string): boolean {
    return settings.allowedOrigins.includes(origin);
  }

  function incomingChat(channel: ChannelRow, visitor: VisitorRow, conversation: ConversationRow) {
    return {
      externalChatId: conversation.id,
      uniqueId: `${conversation.id}_${channel.id}`,
      dialogName: visitor.name ?? DEFAULT_SENDER_NAME,
      email: visitor.email,
    };
  }

  /** Outside the channel's working hours: when they next begin. */
  function awayNow(channel: ChannelRow): WidgetSession['away'] {
    const now = clock.now();
    if (channel.workingHours === null || isOpen(channel.workingHours, now)) return null;
    return { backAt: nextOpenAt(channel.workingHours, now)?.toISOString() ?? null };
  }

  return {
    originAllowed,

    /** Start or resume: the origin, then the identity (refused before anything is stored), then the visitor. */
    async startSession(body: StartSessionBody, clientIp: string): Promise<WidgetSession> {
      const channel = await store.findChannel(body.channelId);
      if (!channel) throw Errors.widgetNotFound();
      const settings = widgetSettingsOf(channel);
      const origin = normalizeOrigin(body.origin);
      if (!origin || !originAllowed(settings, origin)) throw Errors.widgetOriginNotAllowed();

      const identity = body.identity;
      let verified = false;
      if (identity?.identifierHash !== undefined && channel.widgetIdentitySecret !== null) {
        if (!hashMatches(channel.widgetIdentitySecret, identity.identifier, identity.identifierHash)) throw Errors.widgetIdentityInvalid();
        verified = true;
      }
      if (settings.requireVerifiedIdentity && !verified) {
        throw identity ? Errors.widgetIdentityInvalid() : Errors.widgetIdentityRequired();
      }

      const claims = body.token ? tokens.verify(body.token) : undefined;
      let visitor = claims && claims.channelId === channel.id ? await store.findVisitor(channel.id, claims.visitorId) : undefined;
      const named = { ...(identity?.name ? { name: identity.name } : {}), ...(identity?.email ? { email: identity.email } : {}) };
      if (identity && verified) {
        // A verified customer is the same visitor on every device; an anonymous visitor becomes them.
        const known = await store.findVisitorByIdentifier(channel.id, identity.identifier);
        if (known) visitor = Object.keys(named).length > 0 ? await store.updateVisitor(known.id, named) : known;
        else if (visitor && visitor.identifier === null) visitor = await store.updateVisitor(visitor.id, { identifier: identity.identifier, ...named });
        else visitor = undefined;
      } else if (identity && visitor && visitor.identifier === null && Object.keys(named).length > 0) {
        // Unverified details are taken as the visitor says them, but never link to a known customer.
        visitor = await store.updateVisitor(visitor.id, named);
      }

      if (!visitor) {
        const key = ipKey(clientIp);
        const recent = await store.countNewVisitors(channel.id, key, new Date(clock.now().getTime() - MINUTE_MS));
        if (recent >= settings.newVisitorsPerIpPerMinute) throw Errors.widgetTooManyVisitors();
        visitor = await store.insertVisitor({
          id: newId(),
          accountId: channel.accountId,
          channelId: channel.id,
          identifier: verified && identity ? identity.identifier : null,
          name: identity?.name ?? null,
          email: identity?.email ?? null,
          ipKey: key,
          createdAt: clock.now(),
        });
      }
      // The first conversation's id is the visitor's: their first chat has chatId = visitor id.
      if (!(await store.latestConversation(visitor.id))) {
        await store.insertConversation({ id: visitor.id, accountId: channel.accountId, channelId: channel.id, visitorId: visitor.id, createdAt: clock.now() });
      }
      if (Object.keys(named).length > 0 && (verified || visitor.identifier === null)) {
        await store.updateChatsIdentity(channel.id, visitor.id, {
          ...(visitor.name ? { dialogName: visitor.name } : {}),
          ...(visitor.email ? { email: visitor.email } : {}),
        });
      }
      return {
        token: tokens.sign({ visitorId: visitor.id, channelId: channel.id, accountId: channel.accountId, origin }),
        visitorId: visitor.id,
        verified,
        name: visitor.name,
        email: visitor.email,
        look: {
          title: settings.title,
          color: settings.color,
          position: settings.position,
          launcherText: settings.launcherText,
          greeting: settings.greeting,
        },
        limits: {
          maxMessageLength: settings.maxMessageLength,
          maxFiles: MAX_FILES,
          maxFileBytes: MAX_FILE_BYTES,
          messagesPerMinute: settings.messagesPerMinute,
        },
        preChatForm: settings.preChatForm.enabled ? { name: settings.preChatForm.name, email: settings.preChatForm.email } : null,
        away: awayNow(channel),
      };
    },

    /** The pre-chat form's answers: the visitor's name and e-mail, and so their chats'. */
    async updateDetails({ channel, settings, visitor }: VisitorContext, body: WidgetVisitorDetails): Promise<{ name: string | null; email: string | null }> {
      const changes = {
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
        ...(body.email !== undefined ? { email: body.email.trim() } : {}),
      };
      const missing = missingDetails(settings, { ...visitor, ...changes });
      if (missing.length > 0) throw Errors.widgetDetailsRequired(missing);
      if (Object.keys(changes).length === 0) return { name: visitor.name, email: visitor.email };
      const updated = await store.updateVisitor(visitor.id, changes);
      await store.updateChatsIdentity(channel.id, visitor.id, {
        ...(changes.name !== undefined ? { dialogName: changes.name } : {}),
        ...(changes.email !== undefined ? { email: changes.email } : {}),
      });
      return { name: updated.name, email: updated.email };
    },

    /** Every visitor request: a valid token, its channel still a widget, the page's origin still allowed. */
    async authenticate(authorization: string | undefined): Promise<VisitorContext> {
      const token = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : undefined;
      const claims = token ? tokens.verify(token) : undefined;
      if (!claims) throw Errors.visitorTokenInvalid();
      const channel = await store.findChannel(claims.channelId);
      if (!channel || channel.accountId !== claims.accountId) throw Errors.visitorTokenInvalid();
      const settings = widgetSettingsOf(channel);
      if (!originAllowed(settings, claims.origin)) throw Errors.widgetOriginNotAllowed();
      const visitor = await store.findVisitor(channel.id, claims.visitorId);
      if (!visitor) throw Errors.visitorTokenInvalid();
      return { channel, settings, visitor };
    },

    /** One of the visitor's conversations (the newest when none is named); 404 for anyone else's. */
    async conversationOf({ visitor }: VisitorContext, id?: string): Promise<ConversationRow> {
      const found = id === undefined ? await store.latestConversation(visitor.id) : isUuid(id) ? await store.findConversation(visitor.id, id) : undefined;
      if (!found) throw Errors.widgetConversationNotFound();
      return found;
    },

    async listConversations({ visitor }: VisitorContext): Promise<{ conversations: WidgetConversation[] }> {
      const rows = await store.conversations(visitor.id);
      return {
        conversations: rows.map((row) => ({
          id: row.id,
          createdAt: row.createdAt.toISOString(),
          lastText: row.lastMessageAt ? row.lastText : null,
          lastMessageAt: row.lastMessageAt?.toISOString() ?? null,
        })),
      };
    },

    /** A new conversation; while the newest has no message yet, that one (no empty conversations pile up). */
    async newConversation({ channel, visitor }: VisitorContext): Promise<{ conversation: WidgetConversation }> {
      const latest = await store.latestConversation(visitor.id);
      if (latest && !(await store.findChat(channel.id, latest.id))) {
        return { conversation: { id: latest.id, createdAt: latest.createdAt.toISOString(), lastText: null, lastMessageAt: null } };
      }
      const created = await store.insertConversation({ id: newId(), accountId: channel.accountId, channelId: channel.id, visitorId: visitor.id, createdAt: clock.now() });
      return { conversation: { id: created.id, createdAt: created.createdAt.toISOString(), lastText: null, lastMessageAt: null } };
    },

    /**
     * A conversation's messages, oldest first (the last 500). With `after`: the messages from shortly before that
     * one on (RESUME_OVERLAP_MS), so none committed late is missed; the frame drops ids it has.
     */
    async history({ channel }: VisitorContext, conversation: ConversationRow, after?: string): Promise<{ messages: WidgetMessage[] }> {
      const chat = await store.findChat(channel.id, conversation.id);
      if (!chat) return { messages: [] };
      const anchor = after && isUuid(after) ? await store.findMessage(chat.id, after) : undefined;
      const since = anchor ? new Date(anchor.createdAt.getTime() - RESUME_OVERLAP_MS) : undefined;
      const rows = since ? await store.messages(chat.id, since, HISTORY_LIMIT) : await store.recentMessages(chat.id, HISTORY_LIMIT);
      return { messages: rows.map(toWidgetMessage) };
    },

    /** A conversation's messages from `since` on (the live stream's catch-up), oldest first. */
    async messagesSince({ channel }: VisitorContext, conversation: ConversationRow, since: Date | undefined): Promise<MessageRow[]> {
      const chat = await store.findChat(channel.id, conversation.id);
      if (!chat) return [];
      return since ? store.messages(chat.id, since, HISTORY_LIMIT) : store.recentMessages(chat.id, HISTORY_LIMIT);
    },

    /** A resume point: the time of the message with that id in the conversation, when there is one. */
    async resumePoint({ channel }: VisitorContext, conversation: ConversationRow, messageId: string): Promise<Date | undefined> {
      if (!isUuid(messageId)) return undefined;
      const chat = await store.findChat(channel.id, conversation.id);
      const message = chat ? await store.findMessage(chat.id, messageId) : undefined;
      return message?.createdAt;
    },

    /** The visitor's message, within the channel's limits, through the ingest path of every customer message. */
    async send(
      context: VisitorContext,
      conversation: ConversationRow,
      text: string,
      uploads: readonly Upload[],
    ): Promise<{ message: WidgetMessage | null }> {
      const { channel, settings, visitor } = context;
      if (text.trim() === '' && uploads.length === 0) throw Errors.widgetMessageEmpty();
      if ([...text].length > settings.maxMessageLength) throw Errors.widgetMessageTooLong(settings.maxMessageLength);
      const missing = missingDetails(settings, visitor);
      if (missing.length > 0) throw Errors.widgetDetailsRequired(missing);
      const chat = await store.findChat(channel.id, conversation.id);
      if (chat?.banned) return { message: null }; // ignored before any file is written
      const recent = await store.countCustomerMessages(channel.id, visitor.id, new Date(clock.now().getTime() - MINUTE_MS));
      if (recent >= settings.messagesPerMinute) throw Errors.widgetTooManyMessages(settings.messagesPerMinute);
      const result = await messages.receiveCustomerMessage(
        channel,
        incomingChat(channel, visitor, conversation),
        { text, ...(visitor.name ? { senderName: visitor.name } : {}) },
        uploads,
      );
      return { message: result ? toWidgetMessage(result.message) : null };
    },
  };
}

export type WidgetService = ReturnType<typeof createWidgetService>;
