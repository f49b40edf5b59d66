// The Inbox's reply suggestions (issue #44): GET /console/v1/chat/suggestions/{chatId}/.
import { inboxRoutes } from '@parley/contracts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { SuggestionsService } from './suggestions-service.ts';

export function registerSuggestionRoutes(app: TypedApp, suggestions: SuggestionsService): void {
  app.route({
    ...routeOptions(inboxRoutes.getChatSuggestions),
    handler: (request) => suggestions.suggest(consoleAccountOf(request).accountId, request.params.chatId),
  });
}
