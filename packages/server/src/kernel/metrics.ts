// What the app counts for Prometheus (docs/operations.md, Metrics): one registry per app (tests build many apps in
// one process), the counters and histograms the features record into, in memory. The names and labels are a
// contract dashboards rely on; metrics/module.ts serves them and adds what is read at scrape time.
import { ACTION_KINDS, ACTION_OUTCOMES, CHANNEL_KINDS, type ActionKind, type ActionOutcome } from '@parley/contracts';
import { Counter, Histogram, Registry } from 'prom-client';
import type { StoredAgentEngine } from '../db/schema.ts';

export const AGENT_ENGINES = ['knowledge-base', 'openai-compatible'] as const satisfies readonly StoredAgentEngine['kind'][];
/** `handoff` is part of the contract for the handoff to the team, not counted yet (always 0). */
export const AGENT_OUTCOMES = ['answered', 'fallback', 'handoff', 'failed'] as const;
export type AgentOutcome = (typeof AGENT_OUTCOMES)[number];
export const WEBHOOK_OUTCOMES = ['delivered', 'retried', 'failed'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];
/** The `route` of a request no route matched (a 404): one value, never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

export function createAppMetrics() {
  const registry = new Registry();
  const registers = [registry];

  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to its response, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers,
  });
  const messagesIngested = new Counter({
    name: 'parley_messages_ingested_total',
    help: 'Messages stored by the ingest path (public API, messengers, widget), by channel kind.',
    labelNames: ['channel_kind'] as const,
    registers,
  });
  const agentReplies = new Counter({
    name: 'parley_agent_replies_total',
    help: 'Agent reply jobs that ended with a reply or a failure, by engine and outcome.',
    labelNames: ['engine', 'outcome'] as const,
    registers,
  });
  const agentReplyDuration = new Histogram({
    name: 'parley_agent_reply_duration_seconds',
    help: 'Time of an agent reply job, from reading the chat to the reply or the failure stored.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const webhookDeliveries = new Counter({
    name: 'parley_webhook_deliveries_total',
    help: 'Webhook delivery attempts recorded, by outcome (retried: another attempt follows).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const webhookLag = new Histogram({
    name: 'parley_webhook_delivery_lag_seconds',
    help: "Time from an event's creation to its successful delivery to the receiver.",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });

  const actionCalls = new Counter({
    name: 'parley_action_calls_total',
    help: "Runs of agent actions (calls to the account's own API, or refused or declined before one), by kind and outcome.",
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });

  // Every known label value is shown from the start (0), so a dashboard's rate() has a series before the first event.
  for (const kind of CHANNEL_KINDS) messagesIngested.labels(kind).inc(0);
  for (const engine of AGENT_ENGINES) for (const outcome of AGENT_OUTCOMES) agentReplies.labels(engine, outcome).inc(0);
  for (const outcome of WEBHOOK_OUTCOMES) webhookDeliveries.labels(outcome).inc(0);
  for (const kind of ACTION_KINDS) for (const outcome of ACTION_OUTCOMES) actionCalls.labels(kind, outcome).inc(0);

  return {
    registry,
    /** A response was sent; `route` is the matched route's template. */
    httpRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
      httpDuration.observe({ method, route: route ?? UNMATCHED_ROUTE, status_code: statusCode }, seconds);
    },
    messageIngested(channelKind: string): void {
      messagesIngested.inc({ channel_kind: channelKind });
    },
    agentReply(engine: string, outcome: AgentOutcome, seconds: number): void {
      agentReplies.inc({ engine, outcome });
      agentReplyDuration.observe(seconds);
    },
    /** An action run was recorded. */
    actionCall(kind: ActionKind, outcome: ActionOutcome): void {
      actionCalls.inc({ kind, outcome });
    },
    /** An attempt was recorded; `lagSeconds` for a delivered one. */
    webhookAttempt(outcome: WebhookOutcome, lagSeconds?: number): void {
      webhookDeliveries.inc({ outcome });
      if (lagSeconds !== undefined) webhookLag.observe(Math.max(0, lagSeconds));
    },
  };
}

export type AppMetrics = ReturnType<typeof createAppMetrics>;

/** Records nothing: for services built without an app (their unit tests). */
export const NO_METRICS: Omit<AppMetrics, 'registry'> = {
  httpRequest: () => {},
  messageIngested: () => {},
  agentReply: () => {},
  webhookAttempt: () => {},
  actionCall: () => {},
};
