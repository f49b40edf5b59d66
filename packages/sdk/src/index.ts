// @parley/sdk: a typed client of Parley's public API and webhook receiver helpers.
export * from './client.ts';
export * from './errors.ts';
export * from './webhooks/adapters.ts';
export * from './webhooks/dedupe.ts';
export * from './webhooks/receiver.ts';
export { signWebhook } from './webhooks/signature.ts';
export { validate, type JsonSchema } from './webhooks/validate.ts';
