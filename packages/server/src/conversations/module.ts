// Outcomes and reports: conversations kept by triggers (migration 0027), ended by quiet time by the sweep, read by
// the reports.
import type { Kernel } from '../kernel/kernel.ts';
import type { ChannelStores } from '../channels/channel-cache.ts';
import { registerReportRoutes } from './report-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createConversationsStore } from './conversations-store.ts';
import { createConversationsSweep } from './conversations-sweep.ts';
import { createCsat } from './csat.ts';
import { createMessengerCsat } from './csat-messenger.ts';
import type { CustomerDelivery } from '../messages/customer-delivery.ts';
import { createReportsService } from './reports-service.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type ConversationsShared = Pick<Kernel, 'clock' | 'db' | 'jobs' | 'logger'> & ChannelStores;

export function createConversationsModule(core: ConversationsShared, options: { sweepMs?: number; customerDelivery?: CustomerDelivery; eventsCommitted?: () => void } = {}) {
  const reports = createReportsService({ db: core.db });
  const messengerCsat = options.customerDelivery
    ? createMessengerCsat({ db: core.db, clock: core.clock, customerDelivery: options.customerDelivery, channelsStoreOf: core.channelsStoreOf, eventsCommitted: options.eventsCommitted })
    : undefined;
  const sweep = createConversationsSweep({
    db: core.db,
    clock: core.clock,
    jobs: core.jobs,
    logger: core.logger,
    everyMs: options.sweepMs,
    ...(messengerCsat ? { askCsat: messengerCsat.askEnded } : {}),
  });
  return {
    reports,
    /** The customer's rating of a conversation (the widget's and messengers' `How did we do?`). */
    csat: createCsat({ db: core.db, clock: core.clock }),
    /** Messenger CSAT: the question when a conversation ends, the customer's 1–5 as its rating. */
    messengerCsat,
    sweep: sweep.sweep,
    /** Ended conversations by outcome (every process's), for parley_conversations_total. */
    outcomeTotals: () => createConversationsStore(core.db).outcomeTotals(),
    workers: sweep.workers,
    consoleRoutes: (api) => registerReportRoutes(api, reports),
  } satisfies FeatureModule & Record<string, unknown>;
}
