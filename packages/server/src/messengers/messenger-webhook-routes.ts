// Messenger inbound (`/channels/{type}/{channelId}/webhook`, docs/architecture.md, Messenger connectors). Bodies are kept
// raw: the Meta and Viber signatures cover the exact bytes. The messenger gets `{ ok: true }` once the messages
// are stored; agent replies and webhook deliveries follow as jobs.
import { MessengerInboundParams, MetaVerificationQuery } from '@parley/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { MessengerInbound } from './messenger-inbound.ts';
import type { TypedApp } from '../http/route-options.ts';

export const messengerWebhooks: FastifyPluginAsync<{ inbound: MessengerInbound }> = async (fastify, { inbound }) => {
  const app: TypedApp = fastify.withTypeProvider();
  // Scoped to this plugin: every other route keeps Fastify's JSON parser.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.route({
    method: 'POST',
    url: '/:type/:channelId/webhook',
    schema: { params: MessengerInboundParams },
    handler: async (request) => {
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      await inbound.receive(request.params.type, request.params.channelId, { headers: request.headers, rawBody });
      return { ok: true };
    },
  });

  app.route({
    method: 'GET',
    url: '/:type/:channelId/webhook',
    schema: { params: MessengerInboundParams, querystring: MetaVerificationQuery },
    handler: async (request, reply) => {
      const challenge = await inbound.verifySubscription(request.params.type, request.params.channelId, {
        mode: request.query['hub.mode'],
        verifyToken: request.query['hub.verify_token'],
        challenge: request.query['hub.challenge'],
      });
      return reply.type('text/plain; charset=utf-8').send(challenge);
    },
  });
};
