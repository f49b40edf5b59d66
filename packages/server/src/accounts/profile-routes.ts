// The member's own settings and password (issue #33). Who may call each is the contract's `role` (every member).
import { profileRoutes } from '@parley/contracts';
import type { ProfileService } from './profile-service.ts';
import type { SessionsService } from './sessions-service.ts';
import type { TwoFactorService } from './two-factor-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf, setSessionCookie } from '../http/console/console-plugin.ts';
import { auditOf } from '../audit/audit-context.ts';

export function registerProfileRoutes(app: TypedApp, profile: ProfileService, sessions: SessionsService, twoFactor: TwoFactorService): void {
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
  app.route({
    ...routeOptions(profileRoutes.listMySessions),
    handler: (request) => sessions.list(consoleAccountOf(request)),
  });
  app.route({
    ...routeOptions(profileRoutes.deleteMySession),
    handler: async (request) => {
      await sessions.remove(consoleAccountOf(request), request.params.id, auditOf(request));
      return { success: true as const };
    },
  });
  app.route({
    ...routeOptions(profileRoutes.deleteMyOtherSessions),
    handler: async (request) => {
      await sessions.removeOthers(consoleAccountOf(request), auditOf(request));
      return { success: true as const };
    },
  });
  // Two-factor sign-in (issue #45, item 1).
  app.route({
    ...routeOptions(profileRoutes.setupTwoFactor),
    handler: (request) => twoFactor.setup(consoleAccountOf(request)),
  });
  app.route({
    ...routeOptions(profileRoutes.enableTwoFactor),
    handler: (request) => twoFactor.enable(consoleAccountOf(request), request.body, auditOf(request)),
  });
  app.route({
    ...routeOptions(profileRoutes.disableTwoFactor),
    handler: async (request) => {
      await twoFactor.disable(consoleAccountOf(request), request.body, auditOf(request));
      return { success: true as const };
    },
  });
}
