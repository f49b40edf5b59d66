// The chat widget's visitor sessions (docs/architecture.md, Chat widget): start or resume with a server-signed
// visitor token, identity verification, the pre-chat form's details, and each request's authentication; part of the
// widget service (widget-service.ts).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { MAX_FILE_BYTES, MAX_FILES, WIDGET_PAGE_MAX, type StartSessionBody, type WidgetSession, type WidgetVisitorDetails } from '@parley/contracts';
import type { StoredWidgetSettings } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import { isOpen, nextOpenAt } from '../channels/working-hours.ts';
import { widgetSettingsOf } from '../channels/channels-service.ts';
import type { ChannelRow } from '../channels/channels-store.ts';
import { normalizeOrigin, pageOnOrigin } from '../channels/origins.ts';
import type { Clock } from '../lib/clock.ts';
import type { VisitorTokens } from './visitor-token.ts';
import type { VisitorRow, WidgetStore } from './widget-store.ts';

/** A visitor request, authenticated: the channel and visitor its token names. */
export interface VisitorContext {
  channel: ChannelRow;
  settings: StoredWidgetSettings;
  visitor: VisitorRow;
}

/** What the sessions use; the widget service's dependencies include these (widget-service.ts). */
export interface VisitorSessionsDeps {
  store: WidgetStore;
  tokens: VisitorTokens;
  clock: Clock;
  /** A non-reversible key of a client address (abuse limit per address). */
  ipKey: (ip: string) => string;
}

/** The window of the per-minute abuse limits (new visitors per address, messages per visitor). */
export const MINUTE_MS = 60_000;

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
export function missingDetails(settings: StoredWidgetSettings, visitor: Pick<VisitorRow, 'name' | 'email'>): string[] {
  const form = settings.preChatForm;
  if (!form.enabled) return [];
  return [
    ...(form.name === 'required' && !visitor.name ? ['name'] : []),
    ...(form.email === 'required' && !visitor.email ? ['email'] : []),
  ];
}

export function createVisitorSessions({ store, tokens, clock, ipKey }: VisitorSessionsDeps) {
  function originAllowed(settings: StoredWidgetSettings, origin: string): boolean {
    return settings.allowedOrigins.includes(origin);
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
      // The page the widget was opened on, for the team's customer card.
      const page = body.page === undefined ? undefined : pageOnOrigin(body.page, origin, WIDGET_PAGE_MAX);
      if (page !== undefined && page !== visitor.pageUrl) visitor = await store.updateVisitor(visitor.id, { pageUrl: page });
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
  };
}
