import { Type } from 'typebox';
import { ErrorBody } from '../errors.ts';

export const ConsoleErrors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody } as const;
export const Uuid = Type.String({ format: 'uuid' });
