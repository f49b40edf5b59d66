// The messengers' inbound webhook (`/channels/{type}/{channelId}/webhook`, docs/architecture.md, Messenger connectors): what
// the path and Meta's verification query may hold. The POST body is each messenger's own format, read raw (its
// signature covers the exact bytes) and parsed by the kind's connector.
import { Type, type Static } from 'typebox';
import { MESSENGER_KINDS } from './public/channel-kinds.ts';
import { object, stringEnum } from './schema.ts';

export const MessengerInboundParams = object({
  type: stringEnum(MESSENGER_KINDS),
  channelId: Type.String({ minLength: 1, maxLength: 200 }),
});
export type MessengerInboundParams = Static<typeof MessengerInboundParams>;

/** Meta's subscription check: `hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`. */
export const MetaVerificationQuery = object({
  'hub.mode': Type.String({ maxLength: 100 }),
  'hub.verify_token': Type.String({ maxLength: 500 }),
  'hub.challenge': Type.String({ maxLength: 500 }),
});
export type MetaVerificationQuery = Static<typeof MetaVerificationQuery>;
