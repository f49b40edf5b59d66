// Response headers of the public API, as the documents declare them (sent by the gateway's rate limit).
import { Type } from 'typebox';
import type { ResponseHeader } from '../route.ts';

/** On every `/api/v1` response: the IETF RateLimit header fields (draft), counted per API key. */
export const RATE_LIMIT_HEADERS: Readonly<Record<string, ResponseHeader>> = {
  'RateLimit-Policy': {
    description: 'The quota policy: requests per window in seconds, e.g. `300;w=10` (300 requests per 10 s per API key)',
    schema: Type.String({ example: '300;w=10' }),
  },
  'RateLimit-Limit': { description: 'Requests allowed in the current window', schema: Type.Integer({ minimum: 0 }) },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: Type.Integer({ minimum: 0 }) },
  'RateLimit-Reset': { description: 'Seconds until the current window ends', schema: Type.Integer({ minimum: 0 }) },
};

/** On a 429: when to try again. */
export const RETRY_AFTER_HEADER: Readonly<Record<string, ResponseHeader>> = {
  'Retry-After': { description: 'Seconds to wait before the next request', schema: Type.Integer({ minimum: 0 }) },
};
