// The overview (web account's first page): what a team lead looks at, from SQL aggregates over a window.
import { Type, type Static } from 'typebox';
import { route } from '../route.ts';
import { object } from '../schema.ts';
import { ConsoleErrors } from './common.ts';

export const OVERVIEW_DAYS_MAX = 90;

export const Overview = object({
  days: Type.Integer({ description: 'length of the window, in UTC days ending today' }),
  /** One row per UTC day of the window, oldest first (days without chats included, with 0). */
  conversationsPerDay: Type.Array(
    object({
      date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
      conversations: Type.Integer({ description: 'chats created that day (new chats; the reports count conversations)' }),
    }),
  ),
  agentReplies: object({
    answered: Type.Integer({ description: 'agent replies with a direct answer (knowledge base or model; a greeting is no answer)' }),
    answeredAfterChoice: Type.Integer({ description: "agent replies that answered the customer's pick of clarifying choices" }),
    clarified: Type.Integer({ description: 'clarifying menus the agent offered (knowledge-base engine): a question back, not an answer' }),
    fellBack: Type.Integer({ description: "agent replies that were the engine's fallback sentence" }),
    handedOff: Type.Integer({ description: 'chats the agent handed to the team (its handoff message)' }),
  }),
  /** The agent's replies per UTC day of the window, oldest first (days without replies included, with 0). */
  agentRepliesPerDay: Type.Array(
    object({
      date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
      answered: Type.Integer(),
      answeredAfterChoice: Type.Integer(),
      clarified: Type.Integer(),
      fellBack: Type.Integer(),
      handedOff: Type.Integer(),
    }),
  ),
  corrections: Type.Integer({ description: 'knowledge-base entries made from corrected replies in the window' }),
  tasksDone: Type.Integer({ description: 'chats whose task is done (all time)' }),
  chats: Type.Integer({ description: 'chats of the account (all time)' }),
});
export type Overview = Static<typeof Overview>;

export const overviewRoutes = {
  getOverview: route({
    method: 'GET',
    url: '/overview/',
    operationId: 'getOverview',
    role: 'agent',
    summary: 'New chats per day, the agent replies answered / after a choice / clarified / fell back / handed off per day, corrections, tasks done',
    tags: ['Overview'],
    schema: {
      querystring: object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: OVERVIEW_DAYS_MAX, default: 14 })) }),
      response: { 200: Overview, ...ConsoleErrors },
    },
  }),
} as const;
