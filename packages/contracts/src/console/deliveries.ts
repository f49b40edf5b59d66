// The delivery log of a channel's webhook and redelivery (beyond the spec): what was sent, when, and how
// the receiver answered.
import { Type, type Static } from 'typebox';
import { CHANNEL_KINDS } from '../public/channel-kinds.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';
import { ConsoleErrors, Uuid } from './common.ts';

export const DeliveryAttempt = object({
  number: Type.Integer({ minimum: 1 }),
  startedAt: Timestamp,
  latencyMs: Type.Integer({ minimum: 0 }),
  statusCode: nullable(Type.Integer()),
  error: nullable(Type.String()),
});

export const Delivery = object({
  id: Type.String({ description: 'also the `webhook-id` of signed deliveries' }),
  eventId: Type.String(),
  event: stringEnum(['new_messages', 'task_trigger', 'dialog_status_changed'] as const),
  status: stringEnum(['pending', 'delivered', 'failed'] as const),
  attempts: Type.Array(DeliveryAttempt),
  createdAt: Timestamp,
  finishedAt: nullable(Timestamp),
});
export type Delivery = Static<typeof Delivery>;

const ChannelParams = object({ type: stringEnum(CHANNEL_KINDS), id: Type.String({ minLength: 1, maxLength: 200 }) });

export const deliveryRoutes = {
  listDeliveries: route({
    method: 'GET',
    url: '/channel/:type/:id/deliveries',
    operationId: 'listDeliveries',
    role: 'admin',
    summary: "The channel's webhook deliveries, newest first, with every attempt",
    tags: ['Webhooks'],
    schema: {
      params: ChannelParams,
      querystring: object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })) }),
      response: { 200: object({ deliveries: Type.Array(Delivery) }), ...ConsoleErrors },
    },
  }),
  redeliver: route({
    method: 'POST',
    url: '/deliveries/:deliveryId/redeliver',
    operationId: 'redeliver',
    role: 'admin',
    summary: 'Send the event of a finished delivery again (a new delivery, 3 attempts)',
    tags: ['Webhooks'],
    schema: {
      params: object({ deliveryId: Uuid }),
      response: { 202: object({ id: Type.String() }), ...ConsoleErrors },
    },
  }),
  redeliverFailed: route({
    method: 'POST',
    url: '/channel/:type/:id/deliveries/redeliver',
    operationId: 'redeliverFailed',
    role: 'admin',
    summary: 'Retry every failed delivery of the channel created in [from, to)',
    tags: ['Webhooks'],
    schema: {
      params: ChannelParams,
      body: object({ from: Timestamp, to: Timestamp }),
      response: { 202: object({ count: Type.Integer({ minimum: 0 }) }), ...ConsoleErrors },
    },
  }),
} as const;
