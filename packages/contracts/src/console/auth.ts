import { Type } from 'typebox';
import { EMAIL_MAX, PASSWORD_MAX } from '../admin/index.ts';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { object } from '../schema.ts';

export const authRoutes = {
  login: route({
    method: 'POST',
    url: '/auth/login',
    operationId: 'login',
    summary: 'Log in; the token goes in `Authorization: Bearer <token>` of every other console call',
    description: 'Too many failed attempts for one e-mail lock it for a while (429).',
    tags: ['Auth'],
    anonymous: true,
    schema: {
      body: object({
        email: Type.String({ minLength: 1, maxLength: EMAIL_MAX }),
        password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
      }),
      response: { 200: object({ token: Type.String() }), 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
    },
  }),
} as const;
