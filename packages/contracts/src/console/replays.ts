// Replay and knowledge gaps (issue #37): past customer questions answered again by a channel's agent as it is
// configured now, sending nothing to anyone, with each reply's verdict against the team's answer and the team's
// marks; and the questions the agent could not answer, grouped by meaning, to turn into knowledge.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum } from '../schema.ts';
import { ConsoleErrors, Uuid } from './common.ts';

/** The most questions one replay takes (history or file). */
export const REPLAY_MAX_ROWS = 20_000;
/** The largest file a replay accepts (413 above). */
export const REPLAY_FILE_MAX_BYTES = 20 * 1024 * 1024;
export const REPLAY_DAYS_MAX = 365;
export const GAPS_DAYS_MAX = 365;

export const REPLAY_STATUSES = ['running', 'done', 'failed'] as const;
export const REPLAY_VERDICTS = ['agrees', 'differs', 'clarified', 'handed_off', 'fell_back'] as const;
export type ReplayVerdict = (typeof REPLAY_VERDICTS)[number];
export const REPLAY_MARKS = ['right', 'wrong'] as const;
export type ReplayMark = (typeof REPLAY_MARKS)[number];
export const REPLAY_ANSWERED_BY = ['team', 'agent'] as const;
export type ReplayAnsweredBy = (typeof REPLAY_ANSWERED_BY)[number];

export const StartedReplay = object({
  id: Type.String(),
  status: Type.Literal('running'),
  total: Type.Integer({ minimum: 0, description: 'questions to replay' }),
});
export type StartedReplay = Static<typeof StartedReplay>;

export const ReplaySummary = object({
  answered: Type.Integer({ description: '`agreesWithTeam` + `differs`' }),
  agreesWithTeam: Type.Integer({ description: "the agent's answer says what the team's answer says, by the engine's own similarity" }),
  differs: Type.Integer(),
  clarified: Type.Integer({ description: 'the agent would have asked the customer to choose' }),
  handedOff: Type.Integer(),
  fellBack: Type.Integer(),
  markedRight: Type.Integer({ description: 'answered items (`agrees` or `differs`) marked right' }),
  markedWrong: Type.Integer({ description: 'answered items (`agrees` or `differs`) marked wrong' }),
  estimatedPrecision: nullable(
    Type.Number({ description: '`markedRight` ÷ (`markedRight` + `markedWrong`), answered items only; null before any mark on one' }),
  ),
  unansweredMarks: object(
    { markedRight: Type.Integer(), markedWrong: Type.Integer() },
    { description: 'marks on items the agent did not answer (`clarified`, `handed_off`, `fell_back`): counted apart, not in `estimatedPrecision`' },
  ),
});
export type ReplaySummary = Static<typeof ReplaySummary>;

export const Replay = object({
  id: Type.String(),
  channelId: Type.String(),
  status: stringEnum(REPLAY_STATUSES),
  total: Type.Integer(),
  done: Type.Integer({ description: 'questions replayed so far' }),
  summary: ReplaySummary,
});
export type Replay = Static<typeof Replay>;

export const ReplayItem = object({
  id: Type.String(),
  question: Type.String(),
  teamAnswer: nullable(Type.String({ description: "the past answer the agent's reply is compared with (see `answeredBy`)" })),
  answeredBy: stringEnum(REPLAY_ANSWERED_BY, {
    description: "whose past reply `teamAnswer` is: `team` (a member's reply, or the file's answer) or `agent` (a history question the agent answered alone: the verdict is against the agent's own past reply)",
  }),
  agentReply: nullable(Type.String({ description: "what the agent would have sent (its handoff message for a handoff); null until replayed" })),
  verdict: nullable(stringEnum(REPLAY_VERDICTS, { description: 'null until replayed' })),
  mark: nullable(stringEnum(REPLAY_MARKS)),
  wouldCall: Type.Array(Type.String(), {
    description: 'the actions the agent would have called but did not (a `write` never runs in a replay; a `read` only with `callReadActions`)',
  }),
});
export type ReplayItem = Static<typeof ReplayItem>;

export const KnowledgeGap = object({
  id: Type.String({ description: "stable for the group: a hash of its representative question" }),
  size: Type.Integer({ description: 'customer questions in the group' }),
  examples: Type.Array(Type.String(), { description: 'distinct questions of the group, the most asked first' }),
  teamAnswers: Type.Array(Type.String(), { description: "the members' replies that followed them, the most common first" }),
});
export type KnowledgeGap = Static<typeof KnowledgeGap>;

const ReplayParams = object({ id: Uuid });

export const replayRoutes = {
  startReplay: route({
    method: 'POST',
    url: '/replays/',
    operationId: 'startReplay',
    role: 'admin',
    summary: "Replay past customer questions against the channel's agent as configured now, sending nothing",
    description:
      'JSON `{ channelId, source: "history", days? }` (days 1–365, default 30): the channel\'s customer questions of the last ' +
      '`days` days, each with the first member reply after it and before the customer\'s next message (a question answered by the agent alone: its past reply, ' +
      '`answeredBy: "agent"`; a question nobody answered is left out). Or ' +
      '`multipart/form-data` with the field `channelId` and one file in the field `file`: a CSV with the header ' +
      '`question,answer[,conversationId]` (RFC 4180) or a JSON array `[ { question, answer } ]`, at most 20,000 rows and 20 MB. ' +
      'Answered in the background; read the progress and the summary with `GET /replays/{id}`.',
    tags: ['Replay'],
    consumes: ['multipart/form-data'],
    files: {
      field: 'file',
      maxFiles: 1,
      contentTypes: ['text/csv', 'application/json'],
      description: 'A CSV (`question,answer[,conversationId]`) or a JSON array of `{ question, answer }`, up to 20,000 rows.',
    },
    schema: {
      body: object({
        channelId: Type.String({ minLength: 1, maxLength: 200 }),
        source: Type.Optional(Type.Literal('history')),
        days: Type.Optional(Type.Integer({ minimum: 1, maximum: REPLAY_DAYS_MAX, description: 'default 30' })),
        callReadActions: Type.Optional(
          Type.Union([Type.Boolean(), stringEnum(['true', 'false'] as const)], {
            description: 'call the channel\'s `read` actions for real (default false: they are listed in `wouldCall`); a multipart form sends the text `true`',
          }),
        ),
      }),
      response: { 202: StartedReplay, ...ConsoleErrors, 413: ErrorBody },
    },
  }),
  getReplay: route({
    method: 'GET',
    url: '/replays/:id',
    operationId: 'getReplay',
    role: 'agent',
    summary: "A replay's progress and summary",
    tags: ['Replay'],
    schema: { params: ReplayParams, response: { 200: Replay, ...ConsoleErrors } },
  }),
  listReplayItems: route({
    method: 'GET',
    url: '/replays/:id/items',
    operationId: 'listReplayItems',
    role: 'agent',
    summary: "A replay's questions with the team's answer, the agent's reply, the verdict and the mark, in order",
    tags: ['Replay'],
    schema: {
      params: ReplayParams,
      querystring: object({
        verdict: Type.Optional(stringEnum(REPLAY_VERDICTS)),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
        cursor: Type.Optional(Type.String({ maxLength: 40, description: '`nextCursor` of the previous page' })),
      }),
      response: { 200: object({ items: Type.Array(ReplayItem), nextCursor: nullable(Type.String()) }), ...ConsoleErrors },
    },
  }),
  markReplayItem: route({
    method: 'PUT',
    url: '/replays/:id/items/:itemId',
    operationId: 'markReplayItem',
    role: 'agent',
    summary: "Mark the agent's reply to a replayed question right or wrong (null: unmark)",
    tags: ['Replay'],
    schema: {
      params: object({ id: Uuid, itemId: Uuid }),
      body: object({ mark: nullable(stringEnum(REPLAY_MARKS)) }),
      response: { 200: ReplayItem, ...ConsoleErrors },
    },
  }),
  listKnowledgeGaps: route({
    method: 'GET',
    url: '/knowledge-bases/:id/gaps',
    operationId: 'listKnowledgeGaps',
    role: 'agent',
    summary: 'Customer questions the agent could not answer, grouped by meaning, biggest first, with the team\'s replies',
    description:
      'The customer questions of the last `days` days (default 30) on channels using this knowledge base that got a fallback, ' +
      'a `0` to a clarification, or a handoff, grouped by meaning with the retrieval\'s own signals.',
    tags: ['Knowledge bases'],
    schema: {
      params: object({ id: Uuid }),
      querystring: object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: GAPS_DAYS_MAX, default: 30 })) }),
      response: { 200: object({ gaps: Type.Array(KnowledgeGap) }), ...ConsoleErrors },
    },
  }),
} as const;
