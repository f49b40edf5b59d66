import { Type, type Static } from 'typebox';
import { object } from './schema.ts';

/** Authentication and rate-limit errors: `{ message, code }` (spec, Errors → Format). */
export const AuthErrorBody = object(
  { message: Type.String(), code: Type.Integer() },
  { description: 'Authentication or rate-limit error' },
);
export type AuthErrorBody = Static<typeof AuthErrorBody>;

/** Every other error: `{ message, statusCode }`; validation errors may carry a list of problems. */
export const ErrorBody = object(
  {
    message: Type.Union([Type.String(), Type.Array(Type.String())]),
    statusCode: Type.Integer(),
  },
  { description: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** Exact messages of the spec's Authentication and Limits parts. */
export const AuthMessages = {
  unauthorized: 'Unauthorized',
  paymentRequired: 'Payment Required',
  keyNotActive: 'Key not active',
  forbidden: 'Forbidden scoupe/recources',
  keyNotFound: 'Key not found',
  tooManyRequests: 'Too many requests',
} as const;
