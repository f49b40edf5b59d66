// Messenger connectors in the console: the Telegram token check and the replies that could not be sent.
import { messengerRoutes } from '@parley/contracts';
import type { MessengerOutbound } from './messenger-outbound.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

export interface TelegramTokenCheck {
  validate(token: string): Promise<{ valid: boolean; bot?: { id: number; username: string | null } }>;
}

export function registerMessengerRoutes(app: TypedApp, telegram: TelegramTokenCheck, outbound: Pick<MessengerOutbound, 'listFailures'>): void {
  app.route({
    ...routeOptions(messengerRoutes.validateTelegramToken),
    handler: (request) => {
      consoleAccountOf(request);
      return telegram.validate(request.body.token);
    },
  });
  app.route({
    ...routeOptions(messengerRoutes.listMessengerFailures),
    handler: (request) => outbound.listFailures(consoleAccountOf(request).accountId, request.query),
  });
}
