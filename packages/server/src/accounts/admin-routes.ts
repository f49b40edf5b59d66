// Operator API (`/admin/v1`, docs/architecture.md): the provider's support issues accounts and keys with it.
import { adminRoutes } from '@parley/contracts';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import type { AccountsService } from './accounts-service.ts';
import type { MembersService } from './members-service.ts';
import type { ProfileService } from './profile-service.ts';
import { Errors } from '../errors.ts';
import { secretsEqual } from '../lib/secrets.ts';
import { operatorContext } from '../audit/audit-record.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';

export interface AdminOptions {
  adminToken: string;
  /** Writes a backup to a new file (PGlite); undefined with a PostgreSQL server. */
  backup: ((file: string) => Promise<{ file: string; bytes: number }>) | undefined;
  accounts: AccountsService;
  members: Pick<MembersService, 'listOfAccount' | 'removeAnywhere'>;
  profile: Pick<ProfileService, 'operatorResetLink'>;
}

export const adminApi: FastifyPluginAsync<AdminOptions> = async (fastify, { adminToken, accounts, members, profile, backup }) => {
  const app: TypedApp = fastify.withTypeProvider();
  const expected = `Bearer ${adminToken}`;
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined || !secretsEqual(header, expected)) throw Errors.adminUnauthorized();
  });

  app.route({
    ...routeOptions(adminRoutes.createAccount),
    handler: async (request, reply) => reply.code(201).send(await accounts.createAccount(request.body)),
  });
  app.route({
    // No body at all means "every scope", like an empty object (the contract's bodyOptional).
    ...routeOptions(adminRoutes.createApiKey),
    handler: async (request, reply) =>
      reply.code(201).send(await accounts.issueApiKey(request.params.accountId, request.body.scopes, operatorContext(request.ip))),
  });
  app.route({
    ...routeOptions(adminRoutes.listApiKeys),
    handler: (request) => accounts.listApiKeys(request.params.accountId),
  });
  app.route({
    ...routeOptions(adminRoutes.deactivateApiKey),
    handler: (request) => accounts.deactivateApiKey(request.params.keyId, operatorContext(request.ip)),
  });
  app.route({
    ...routeOptions(adminRoutes.setSubscription),
    handler: (request) => accounts.setSubscription(request.params.accountId, request.body.active),
  });
  app.route({
    ...routeOptions(adminRoutes.listAccountMembers),
    handler: (request) => members.listOfAccount(request.params.accountId),
  });
  app.route({
    ...routeOptions(adminRoutes.removeAccountMember),
    handler: (request) => members.removeAnywhere(request.params.memberId, operatorContext(request.ip)),
  });
  app.route({
    ...routeOptions(adminRoutes.createPasswordReset),
    handler: async (request, reply) => reply.code(201).send(await profile.operatorResetLink(request.body.email)),
  });
  app.route({
    ...routeOptions(adminRoutes.backup),
    handler: async (request) => {
      if (!backup) throw Errors.backupNeedsPgDump();
      if (!path.isAbsolute(request.body.file)) throw Errors.backupPathNotAbsolute();
      return backup(request.body.file);
    },
  });
};
