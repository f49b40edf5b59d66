// Console routes of replays and knowledge gaps (issue #37): one service call each, always for the logged-in
// account. The start takes JSON, or multipart with the field `channelId` and one file in the field `file` (20 MB),
// read in a scope of its own (uploads.ts).
import { REPLAY_FILE_MAX_BYTES, replayRoutes } from '@parley/contracts';
import { Errors } from '../errors.ts';
import type { FileStorage } from '../files/file-storage.ts';
import type { GapsService } from './gaps-service.ts';
import type { ReplaysService } from './replays-service.ts';
import { createUploadReader, registerUploads, type UploadLimits } from '../http/public/uploads.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

const REPLAY_UPLOADS: UploadLimits = {
  field: 'file',
  maxFiles: 1,
  maxFileBytes: REPLAY_FILE_MAX_BYTES,
  tooLarge: Errors.replayFileTooLarge,
  tooMany: Errors.tooManyReplayFiles,
};

export function registerReplayRoutes(app: TypedApp, replays: ReplaysService, gaps: GapsService, storage: Pick<FileStorage, 'incomingPath'>): void {
  void app.register(async (scope) => {
    await registerUploads(scope, REPLAY_UPLOADS);
    const api: TypedApp = scope.withTypeProvider();
    api.route({
      ...routeOptions(replayRoutes.startReplay),
      preValidation: createUploadReader(storage, REPLAY_UPLOADS),
      handler: async (request, reply) => {
        const started = await replays.start(consoleAccountOf(request).accountId, request.body, request.uploads);
        return reply.code(202).send(started);
      },
    });
  });
  app.route({
    ...routeOptions(replayRoutes.getReplay),
    handler: (request) => replays.get(consoleAccountOf(request).accountId, request.params.id),
  });
  app.route({
    ...routeOptions(replayRoutes.listReplayItems),
    handler: (request) => replays.items(consoleAccountOf(request).accountId, request.params.id, request.query),
  });
  app.route({
    ...routeOptions(replayRoutes.markReplayItem),
    handler: (request) => replays.mark(consoleAccountOf(request).accountId, request.params.id, request.params.itemId, request.body.mark),
  });
  app.route({
    ...routeOptions(replayRoutes.listKnowledgeGaps),
    handler: (request) => gaps.list(consoleAccountOf(request).accountId, request.params.id, request.query.days ?? 30),
  });
}
