import { Type } from 'typebox';
import { ErrorBody } from '../errors.ts';

export const ConsoleErrors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody } as const;
export const Uuid = Type.String({ format: 'uuid' });

/** Request header of every console call: the language of error messages. */
export const USER_LANG_HEADER = {
  name: 'UserLang',
  description: 'Language of error messages: `ru` for Russian; anything else or none for English',
  schema: Type.String({ maxLength: 35, example: 'ru' }),
};
