// Outcomes and reports (issue #36): what the agent resolves, proven. Conversations with their outcome, the summary
// a team lead asks for, the ledger behind every figure (JSON, paged, and CSV), and the account's resolution time.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum } from '../schema.ts';
import { ConsoleErrors } from './common.ts';

export const CONVERSATION_OUTCOMES = ['resolved_by_agent', 'resolved_by_team', 'handed_off', 'unanswered'] as const;
export type ConversationOutcome = (typeof CONVERSATION_OUTCOMES)[number];
/** The ledger's `outcome` filter and field: an ended conversation's outcome, or `open` while it runs. */
export const LEDGER_OUTCOMES = [...CONVERSATION_OUTCOMES, 'open'] as const;
export const HANDOFF_REASONS_REPORTED = ['model', 'customer_request', 'fallbacks'] as const;
/**
 * What has happened so far in an open conversation: the agent answered; the team has it (handed off, or the customer
 * wrote to a chat where the agent is paused); a reply (the team's, or the agent's question back) waits for the
 * customer; nothing answered yet.
 */
export const OPEN_STATES = ['answered_by_agent', 'waiting_for_team', 'waiting_for_customer', 'new'] as const;
export type OpenState = (typeof OPEN_STATES)[number];
/**
 * The ledger's `only` filter: the conversations a summary figure counts that `outcome` cannot name (with `outcome` for
 * those of one outcome: `outcome=resolved_by_agent&only=confirmed`).
 */
export const LEDGER_FIGURES = [
  'confirmed',
  'durable',
  'handed_off',
  'model',
  'customer_request',
  'fallbacks',
  'rated',
  'agent_response',
  'team_response',
  'ended',
  'after_choice',
  'with_action',
] as const;
export type LedgerFigure = (typeof LEDGER_FIGURES)[number];

export const RESOLUTION_QUIET_MINUTES_MIN = 1;
export const RESOLUTION_QUIET_MINUTES_MAX = 10080;
export const RESOLUTION_QUIET_MINUTES_DEFAULT = 1440;
/** Retention (issue #45): conversations ended more than this many days ago are deleted; null keeps them. */
export const RETENTION_DAYS_MIN = 7;
export const RETENTION_DAYS_MAX = 3650;
/** The longest window a report reads, in days (`from` and `to` included). */
export const REPORT_RANGE_DAYS_MAX = 366;
export const LEDGER_LIMIT_MAX = 200;
export const CSAT_COMMENT_MAX = 1000;

const DateParam = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD (UTC day, included)' });
const Fraction = nullable(Type.Number({ minimum: 0, maximum: 1 }));
const Seconds = nullable(Type.Number({ minimum: 0 }));
const Percentiles = object({ p50: Seconds, p90: Seconds });
const CsatFigure = object({ count: Type.Integer(), average: nullable(Type.Number()) });

const OnlyParam = stringEnum(LEDGER_FIGURES, {
  description:
    'the conversations of one figure: confirmed, durable, handed_off (ended after a handoff), model / customer_request / fallbacks (the handoff reason), rated, agent_response / team_response (with a first response), ended, after_choice (an answer after a pick), with_action (resolved by the agent with an action\'s answer)',
});

const ReportFilters = {
  from: DateParam,
  to: DateParam,
  channelId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  memberId: Type.Optional(Type.String({ format: 'uuid' })),
};

export const ReportSummary = object({
  conversations: Type.Integer({ description: 'conversations started in the window' }),
  outcomes: object({
    resolvedByAgent: Type.Integer(),
    resolvedByAgentConfirmed: Type.Integer({ description: 'resolved by the agent and rated 4 or 5 by the customer' }),
    resolvedByAgentDurable: Type.Integer({ description: 'resolved by the agent, no new conversation in the chat within 7 days' }),
    resolvedByTeam: Type.Integer(),
    handedOff: Type.Integer(),
    unanswered: Type.Integer(),
    open: Type.Integer(),
  }),
  answeredAfterChoice: Type.Integer({ description: "agent answers given after the customer's pick of clarifying choices" }),
  resolvedWithAction: Type.Integer({ description: 'conversations resolved by the agent in which it answered with an action (a call to the shop)' }),
  agentResolutionRate: Fraction,
  handoffRate: Fraction,
  handoffReasons: object({ model: Type.Integer(), customer_request: Type.Integer(), fallbacks: Type.Integer() }),
  firstResponseSeconds: object({ agent: Percentiles, team: Percentiles }),
  resolutionSeconds: Percentiles,
  csat: object({ agent: CsatFigure, team: CsatFigure }),
  perDay: Type.Array(
    object({
      date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
      conversations: Type.Integer(),
      resolvedByAgent: Type.Integer(),
      handedOff: Type.Integer(),
      resolvedByTeam: Type.Integer(),
    }),
  ),
  perChannel: Type.Array(object({ channelId: Type.String(), name: Type.String(), conversations: Type.Integer(), resolvedByAgent: Type.Integer() })),
  perMember: Type.Array(
    object({
      memberId: Type.String(),
      name: Type.String(),
      conversations: Type.Integer(),
      firstResponseP50: Seconds,
      csatAverage: nullable(Type.Number()),
    }),
  ),
});
export type ReportSummary = Static<typeof ReportSummary>;

export const LedgerConversation = object({
  id: Type.String(),
  chatId: Type.String(),
  channelId: Type.String(),
  customerName: Type.String(),
  startedAt: Type.String({ description: 'ISO 8601 UTC' }),
  endedAt: nullable(Type.String({ description: 'the time of its last message; null while open' })),
  outcome: stringEnum(LEDGER_OUTCOMES),
  confirmed: Type.Boolean(),
  durable: nullable(Type.Boolean()),
  handoffReason: nullable(stringEnum(HANDOFF_REASONS_REPORTED)),
  firstAgentResponseSeconds: Seconds,
  firstTeamResponseSeconds: Seconds,
  assignee: nullable(object({ id: Type.String(), name: Type.String() })),
  csat: nullable(Type.Integer({ minimum: 1, maximum: 5 })),
  messages: Type.Integer(),
  state: nullable(
    stringEnum(OPEN_STATES, {
      description:
        'while open, what has happened so far: answered_by_agent, waiting_for_team (handed off, or the customer wrote while the agent is paused), waiting_for_customer (a member replied last, or the agent asked back), new (nothing answered yet); null once ended',
    }),
  ),
  endsAt: nullable(
    Type.String({ description: "while open, when the account's quiet time ends it if the customer writes no more (ISO 8601 UTC); null once ended" }),
  ),
});
export type LedgerConversation = Static<typeof LedgerConversation>;

export const AccountSettings = object({
  resolutionQuietMinutes: Type.Integer({
    minimum: RESOLUTION_QUIET_MINUTES_MIN,
    maximum: RESOLUTION_QUIET_MINUTES_MAX,
    description: 'a conversation ends after this many minutes without a customer message (default 1440)',
  }),
  retentionDays: nullable(
    Type.Integer({
      minimum: RETENTION_DAYS_MIN,
      maximum: RETENTION_DAYS_MAX,
      description:
        "conversations ended more than this many days ago are deleted with their messages and files by a background sweep (the reports' counts stay); null (default): kept",
    }),
  ),
  requireTwoFactor: Type.Boolean({
    description: 'every member signs in with two-factor sign-in; one without it gets a session that can only set it up (default false; the owner changes it)',
  }),
});
export type AccountSettings = Static<typeof AccountSettings>;

export const reportRoutes = {
  getReportSummary: route({
    method: 'GET',
    url: '/reports/summary',
    operationId: 'getReportSummary',
    role: 'agent',
    summary: 'Outcomes, rates, response times, CSAT and breakdowns of the conversations started in [from, to]',
    description:
      'Rates are fractions of ended conversations; rates, percentiles and averages with no data are null. 400 for a date that is not one, `to` before `from`, or a window longer than 366 days.',
    tags: ['Reports'],
    schema: { querystring: object(ReportFilters), response: { 200: ReportSummary, ...ConsoleErrors } },
  }),
  listReportConversations: route({
    method: 'GET',
    url: '/reports/conversations',
    operationId: 'listReportConversations',
    role: 'agent',
    summary: 'The ledger: conversations started in [from, to], newest first, paged by an opaque cursor',
    tags: ['Reports'],
    schema: {
      querystring: object({
        ...ReportFilters,
        outcome: Type.Optional(stringEnum(LEDGER_OUTCOMES)),
        only: Type.Optional(OnlyParam),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LEDGER_LIMIT_MAX, default: 50 })),
        cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      }),
      response: { 200: object({ conversations: Type.Array(LedgerConversation), nextCursor: nullable(Type.String()) }), ...ConsoleErrors },
    },
  }),
  downloadReportConversations: route({
    method: 'GET',
    url: '/reports/conversations.csv',
    operationId: 'downloadReportConversations',
    role: 'agent',
    summary: 'The ledger as CSV (text/csv): a header row, then one row per conversation started in [from, to]',
    description:
      'Columns as the ledger: id, chatId, channelId, customerName, startedAt, endedAt, outcome, confirmed, durable, handoffReason, firstAgentResponseSeconds, firstTeamResponseSeconds, assignee (name), csat, messages, state, endsAt. RFC 4180 quoting; a cell starting with = + - @ is prefixed with an apostrophe.',
    tags: ['Reports'],
    schema: {
      querystring: object({ ...ReportFilters, outcome: Type.Optional(stringEnum(LEDGER_OUTCOMES)), only: Type.Optional(OnlyParam) }),
      response: { 200: Type.String({ description: 'text/csv' }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
    },
  }),
  getAccountSettings: route({
    method: 'GET',
    url: '/account/settings/',
    operationId: 'getAccountSettings',
    role: 'agent',
    summary: "The account's settings: the quiet time that ends a conversation, and how long ended conversations are kept",
    tags: ['Reports'],
    schema: { response: { 200: AccountSettings, ...ConsoleErrors } },
  }),
  updateAccountSettings: route({
    method: 'PUT',
    url: '/account/settings/',
    operationId: 'updateAccountSettings',
    role: 'admin',
    summary: "Change the account's settings: only the fields named change",
    description: '`requireTwoFactor` is the owner\'s to change (403 `Forbidden for your role` for an admin).',
    tags: ['Reports'],
    schema: {
      body: object({
        resolutionQuietMinutes: Type.Optional(AccountSettings.properties.resolutionQuietMinutes),
        retentionDays: Type.Optional(AccountSettings.properties.retentionDays),
        requireTwoFactor: Type.Optional(AccountSettings.properties.requireTwoFactor),
      }),
      response: { 200: AccountSettings, ...ConsoleErrors },
    },
  }),
} as const;
