// The agent in the console: try a channel's agent without a chat, and see the replies that failed.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { MESSAGE_TEXT_MAX } from '../public/messages.ts';
import { route } from '../route.ts';
import { nullable, object, Timestamp } from '../schema.ts';
import { ConsoleErrors } from './common.ts';

export const AgentFailure = object({
  id: Type.String(),
  channelId: Type.String(),
  chatId: Type.String(),
  error: Type.String({ description: 'why the agent gave up; the chat was left for the team' }),
  createdAt: Timestamp,
});
export type AgentFailure = Static<typeof AgentFailure>;

/** A document passage the agent was given with the question (openai-compatible engine). */
export const GivenPassage = object({
  document: Type.String({ description: 'the name of the document it comes from' }),
  headingPath: Type.Array(Type.String(), { description: 'the headings above it, outermost first' }),
  text: Type.String(),
});
export type GivenPassage = Static<typeof GivenPassage>;

export const agentRoutes = {
  testAgent: route({
    method: 'POST',
    url: '/chat/test/:channelId/',
    operationId: 'testAgent',
    role: 'admin',
    summary: "The channel's agent answers a message; no chat is stored and no event is sent",
    description:
      'Working hours, **Disable agent responses** and `settings.isActive` do not apply: this is how the agent would answer. ' +
      '`taskComplete` says whether it would fire the task trigger; `passages`, which document passages the model was given ' +
      '(none for the knowledge-base engine, which answers with entries alone); `choices`, with a clarification, the options\' labels ' +
      'then the last line\'s (something else). To answer a clarification, send the question that led to it as `clarifiedQuestion` ' +
      'and the pick (its number, a label, `0`) as `text`: the agent asks the question again and takes `text` as the customer\'s ' +
      'next message. 502 when the model server fails.',
    tags: ['Agent'],
    schema: {
      params: object({ channelId: Type.String({ minLength: 1, maxLength: 200 }) }),
      body: object({
        text: Type.String({ minLength: 1, maxLength: MESSAGE_TEXT_MAX }),
        clarifiedQuestion: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: MESSAGE_TEXT_MAX,
            description: "the earlier question whose clarification `text` answers (a pick's number or label, `0`, or a new question)",
          }),
        ),
      }),
      response: {
        200: object({
          reply: nullable(Type.String()),
          taskComplete: Type.Boolean(),
          summary: nullable(Type.String()),
          passages: Type.Array(GivenPassage),
          choices: Type.Optional(
            Type.Array(Type.String(), {
              description: "a clarification's options: their labels, then the last line's (something else), as the widget shows them",
            }),
          ),
        }),
        ...ConsoleErrors,
        502: ErrorBody,
      },
    },
  }),
  listAgentFailures: route({
    method: 'GET',
    url: '/agent/failures/',
    operationId: 'listAgentFailures',
    role: 'agent',
    summary: 'Agent replies that failed after their retries, newest first (those chats wait for the team)',
    tags: ['Agent'],
    schema: {
      querystring: object({
        channelId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      }),
      response: { 200: object({ failures: Type.Array(AgentFailure) }), ...ConsoleErrors },
    },
  }),
} as const;
