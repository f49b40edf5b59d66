// The member's own settings and password (issue #33). Who may call each is the contract's `role` (every member).
import { profileRoutes } from '@parley/contracts';
import type { ProfileService } from '../../accounts/profile-service.ts';
import { routeOptions, type TypedApp } from '../route-options.ts';
import { consoleAccountOf, setSessionCookie } from './console-plugin.ts';

export function registerProfileRoutes(app: TypedApp, profile: ProfileService): void {
  app.route({
    ...routeOptions(profileRoutes.getMe),
    handler: (request) => profile.get(consoleAccountOf(request)),
  });
  app.route({
    ...routeOptions(profileRoutes.updateMe),
    handler: (request) => profile.update(consoleAccountOf(request), request.body),
  });
  // The caller stays signed in: a web-account session gets a new cookie, a bearer caller its new token.
  app.route({
    ...routeOptions(profileRoutes.changeMyPassword),
    handler: async (request, reply) => {
      const renewed = await profile.changePassword(consoleAccountOf(request), request.body);
      if (request.headers.authorization !== undefined) return { success: true as const, token: renewed.token };
      setSessionCookie(request, reply, renewed.session, renewed.maxAgeSeconds);
      return { success: true as const };
    },
  });
}
