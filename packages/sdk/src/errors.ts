// The spec's errors as typed exceptions (spec, Errors). Every one carries the HTTP `status` and the server's
// `message` (a validation error's list of problems is joined; the list itself is in `messages`).

/** The body of an error answer: `{ message, statusCode }`, or `{ message, code }` for authentication and 429. */
export interface ErrorResponseBody {
  message?: string | string[];
  statusCode?: number;
  code?: number;
}

export class ParleyError extends Error {
  /** HTTP status of the answer. */
  readonly status: number;
  /** Every problem the server listed (one item unless it was a validation error with several). */
  readonly messages: string[];
  /** The parsed body of the answer (undefined when it was not JSON). */
  readonly body: ErrorResponseBody | undefined;

  constructor(status: number, body: ErrorResponseBody | undefined, fallback = `HTTP ${status}`) {
    const messages = body?.message === undefined ? [fallback] : Array.isArray(body.message) ? body.message : [body.message];
    super(messages.join('; '));
    this.name = new.target.name;
    this.status = status;
    this.messages = messages;
    this.body = body;
  }
}

/** 400: a missing, invalid or unknown parameter, or `Chat not found`, `Tag already exist`, `Message not found`… */
export class BadRequestError extends ParleyError {}
/** 401 `Unauthorized`: no key, or its account cannot be found. */
export class UnauthorizedError extends ParleyError {}
/** 402 `Payment Required`: the account's subscription is stopped. */
export class PaymentRequiredError extends ParleyError {}
/** 403 `Key not active` or `Forbidden scoupe/recources` (the key lacks the endpoint's scope). */
export class ForbiddenError extends ParleyError {}
/** 404 `Key not found` (check that no `Bearer` prefix is given), or an unknown route. */
export class NotFoundError extends ParleyError {}
/** 413: an attached file is over 10 MB. */
export class PayloadTooLargeError extends ParleyError {}
/** 429 `Too many requests`, when the automatic retries ran out. `retryAfterSeconds` from `RateLimit-Reset`. */
export class RateLimitError extends ParleyError {
  constructor(
    status: number,
    body: ErrorResponseBody | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(status, body);
  }
}
/** 503: a done/undone command could not be queued (after the automatic retries), or the server is busy. */
export class ServiceUnavailableError extends ParleyError {}
/** The server could not be reached, or answered something that is not the API (no HTTP status of the API). */
export class ParleyConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ParleyConnectionError';
  }
}

const BY_STATUS: Record<number, new (status: number, body: ErrorResponseBody | undefined) => ParleyError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  402: PaymentRequiredError,
  403: ForbiddenError,
  404: NotFoundError,
  413: PayloadTooLargeError,
  503: ServiceUnavailableError,
};

/** The typed exception of an error answer. */
export function errorOf(status: number, body: ErrorResponseBody | undefined, retryAfterSeconds?: number): ParleyError {
  if (status === 429) return new RateLimitError(status, body, retryAfterSeconds);
  const Type = BY_STATUS[status] ?? ParleyError;
  return new Type(status, body);
}
