// The event feed (issue #18): the account's webhook events in commit order, so a receiver that was down can
// catch up on what it missed. Payloads are exactly the webhook bodies (webhooks/events.ts), plus `chat_handed_off`,
// which only the feed has.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { nullable, object, Timestamp } from '../schema.ts';
import { ChatHandedOffEvent, DialogStatusChangedEvent, NewMessagesEvent, TaskTriggerEvent } from '../webhooks/events.ts';
import { AuthErrors } from './chats.ts';

/** Opaque position in the feed: `<transaction id>.<event id>` written in base64url. */
export const EVENT_CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,200}$';
export const EVENTS_LIMIT_MAX = 1000;
export const EVENTS_LIMIT_DEFAULT = 100;

export const ListEventsQuery = object({
  after: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: EVENT_CURSOR_PATTERN,
      description: 'A `cursor` (or `nextCursor`) from an earlier answer: only events committed after it. Omitted: from the oldest event kept',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: EVENTS_LIMIT_MAX, default: EVENTS_LIMIT_DEFAULT })),
});
export type ListEventsQuery = Static<typeof ListEventsQuery>;

export const FeedEvent = object({
  id: Type.String({ description: 'Event ID in the feed (a `dialog_status_changed` payload also has its own `eventId`)' }),
  cursor: Type.String({ description: 'Position of this event: pass it as `after` to read the events committed after it' }),
  channelId: Type.String({ description: 'Channel whose webhook receives the event' }),
  createdAt: Timestamp,
  payload: Type.Union([NewMessagesEvent, TaskTriggerEvent, DialogStatusChangedEvent, ChatHandedOffEvent], {
    description:
      "The webhook body, exactly as the channel's webhook receives it; or `chat_handed_off` (the agent handed the chat to the team), which is in the feed only and never sent to a webhook",
  }),
});
export type FeedEvent = Static<typeof FeedEvent>;

export const EventPage = object({
  events: Type.Array(FeedEvent),
  nextCursor: nullable(
    Type.String({ description: 'Pass as `after` for the next page; null only while the account has no event at all and no `after` was given' }),
  ),
  hasMore: Type.Boolean({ description: 'More events were committed after this page' }),
});
export type EventPage = Static<typeof EventPage>;

export const eventRoutes = {
  listEvents: route({
    method: 'GET',
    url: '/events',
    operationId: 'listEvents',
    summary: "The account's webhook events in commit order, to catch up on missed deliveries",
    description:
      'Every event of every channel of the account (also of channels without a webhook URL), in the order their ' +
      'changes committed, with a stable cursor: paging with `after` never skips an event nor returns one twice. ' +
      'Besides the webhook events it has `chat_handed_off` (`reason`: `model`, `customer_request` or `fallbacks`), which no webhook gets. ' +
      'Events are kept at least for the delivery retention period (7 days by default).',
    tags: ['Events'],
    scope: 'events:read',
    schema: { querystring: ListEventsQuery, response: { 200: EventPage, 400: ErrorBody, ...AuthErrors } },
  }),
} as const;
