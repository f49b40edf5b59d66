// A typed client of Parley's public API (`/api/v1`). Every request and response type comes from the route
// contracts of @parley/contracts (types only: nothing of it is loaded at run time); the only runtime need is the
// platform's `fetch` (with FormData and Blob for files).
import type { EventPage, FeedEvent, publicRoutes } from '@parley/contracts';
import type { Static, TSchema } from 'typebox';
import { errorOf, ParleyConnectionError, type ErrorResponseBody, type ParleyError } from './errors.ts';

type Routes = typeof publicRoutes;
type RouteName = keyof Routes;
type SchemaOf<T> = T extends TSchema ? Static<T> : never;
/** The query parameters of a route, as its contract declares them. */
export type QueryOf<K extends RouteName> = Routes[K]['schema'] extends { querystring: infer Q } ? SchemaOf<Q> : never;
/** The JSON body of a route, as its contract declares it. */
export type BodyOf<K extends RouteName> = Routes[K]['schema'] extends { body: infer B } ? SchemaOf<B> : never;
/** The success answer of a route. */
export type ResultOf<K extends RouteName, S extends number = 200> = Routes[K]['schema']['response'] extends infer R
  ? S extends keyof R
    ? SchemaOf<R[S]>
    : never
  : never;

export type ChatList = ResultOf<'listChats'>;
export type ListChatsQuery = QueryOf<'listChats'>;
export type ChatItem = ChatList['chats'][number];
export type ChatCommandResult = ResultOf<'readChat'>;
export type TagList = ResultOf<'listTags'>;
export type ListEventsQuery = QueryOf<'listEvents'>;
export type { EventPage, FeedEvent };

/** A file to attach: a Blob/File (its `name` is used when it has one), or bytes with a name and a type. */
export type FileInput = Blob | { data: Blob | ArrayBuffer | Uint8Array; name: string; type?: string };

/** send-message-universal: the spec's body (`channel` is always `custom`, so optional here) and files. */
export type SendMessageInput = Omit<BodyOf<'sendMessageUniversal'>, 'channel'> & {
  channel?: 'custom';
  /** Up to 10 files of 10 MB each: sent as multipart/form-data. */
  files?: readonly FileInput[];
};

export interface ParleyClientOptions {
  /** The API key, sent as is in `Authorization` (no `Bearer` prefix). */
  apiKey: string;
  /** Base URL of the public API, ending in `/api/v1` (e.g. `https://parley.example.com/api/v1`). */
  baseUrl: string;
  /** A fetch implementation (default: the platform's `fetch`). */
  fetch?: typeof fetch;
  /** Retries after a 429 (and after a 503 of done/undone); default 3. 0 turns retrying off. */
  maxRetries?: number;
  /**
   * The longest wait before one retry, in ms (default 30 000). A 429 whose `RateLimit-Reset` asks for more is thrown
   * at once as a RateLimitError rather than waited for.
   */
  maxRetryWaitMs?: number;
}

type QueryValue = string | number | boolean | undefined;

interface RequestOptions {
  query?: Record<string, QueryValue> | undefined;
  json?: unknown;
  form?: FormData;
  /** Retry a 503 (done/undone: the command was not queued and may be retried). */
  retryUnavailable?: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds from a `RateLimit-Reset` / `Retry-After` header (delta seconds), undefined when absent or not a number. */
function seconds(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

function toBlob(file: FileInput): { blob: Blob; name: string } {
  if (file instanceof Blob) {
    const name = 'name' in file && typeof file.name === 'string' && file.name ? file.name : 'file';
    return { blob: file, name };
  }
  const blob =
    file.data instanceof Blob
      ? file.data
      : new Blob([file.data instanceof Uint8Array ? new Uint8Array(file.data) : file.data], file.type ? { type: file.type } : {});
  return { blob, name: file.name };
}

export class ParleyClient {
  readonly chats: ChatsApi;
  readonly tags: TagsApi;
  readonly messages: MessagesApi;
  readonly feedback: FeedbackApi;
  readonly events: EventsApi;

  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #maxRetries: number;
  readonly #maxRetryWaitMs: number;

  constructor(options: ParleyClientOptions) {
    if (!options.apiKey) throw new TypeError('ParleyClient: apiKey is required');
    this.#apiKey = options.apiKey;
    this.#baseUrl = new URL(options.baseUrl).toString().replace(/\/+$/, '');
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.#maxRetryWaitMs = options.maxRetryWaitMs ?? 30_000;
    const call = this.request.bind(this);
    this.chats = new ChatsApi(call);
    this.tags = new TagsApi(call);
    this.messages = new MessagesApi(call);
    this.feedback = new FeedbackApi(call);
    this.events = new EventsApi(call);
  }

  /**
   * One call of the API: the answer's parsed body, or a typed ParleyError. A 429 is retried after `RateLimit-Reset`
   * seconds (bounded by maxRetries and maxRetryWaitMs); a 503 too when `retryUnavailable` (done/undone).
   */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.#baseUrl}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { authorization: this.#apiKey, accept: 'application/json' };
    let body: string | FormData | undefined;
    if (options.form) body = options.form;
    else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    for (let attempt = 0; ; attempt += 1) {
      let response: Response;
      try {
        response = await this.#fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
      } catch (error) {
        throw new ParleyConnectionError(`${method} ${url.pathname}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (response.ok) return parsed as T;
      const error = this.#failure(response, parsed);
      const waitMs = this.#retryWait(response, attempt, options.retryUnavailable === true);
      if (waitMs === undefined) throw error;
      await sleep(waitMs);
    }
  }

  #failure(response: Response, parsed: unknown): ParleyError {
    const body = typeof parsed === 'object' && parsed !== null ? (parsed as ErrorResponseBody) : undefined;
    const reset = seconds(response.headers.get('ratelimit-reset')) ?? seconds(response.headers.get('retry-after'));
    return errorOf(response.status, body, reset);
  }

  /** How long to wait before retrying, or undefined when the error is final. */
  #retryWait(response: Response, attempt: number, retryUnavailable: boolean): number | undefined {
    if (attempt >= this.#maxRetries) return undefined;
    let waitMs: number;
    if (response.status === 429) {
      const reset = seconds(response.headers.get('ratelimit-reset')) ?? seconds(response.headers.get('retry-after')) ?? 1;
      // The window ends in `reset` seconds (rounded): a little past it, at least 100 ms.
      waitMs = Math.max(100, reset * 1000 + 50);
    } else if (response.status === 503 && retryUnavailable) {
      const after = seconds(response.headers.get('retry-after'));
      waitMs = after !== undefined ? after * 1000 : 500 * 2 ** attempt;
    } else return undefined;
    return waitMs <= this.#maxRetryWaitMs ? waitMs : undefined;
  }
}

type Call = ParleyClient['request'];

/** Chats (spec, Endpoints → Chats): the list, read/unread, done/undone (202, background), ban/unban. */
export class ChatsApi {
  constructor(private readonly call: Call) {}

  /** One page of the account's chats, newest activity first, and the total count matching the filters. */
  list(query: ListChatsQuery = {}): Promise<ChatList> {
    return this.call('GET', '/chats/chat', { query });
  }

  /**
   * Every chat matching the filters, page by page (`pageSize`, default 100). Offset paging over a list ordered by
   * activity: a chat that gets a message meanwhile may be seen twice or moved past; fine for a sweep, not a ledger.
   */
  async *iterate(query: Omit<ListChatsQuery, 'limit'> & { pageSize?: number } = {}): AsyncGenerator<ChatItem, void, undefined> {
    const { pageSize = 100, offset: start = 0, ...filters } = query;
    for (let offset = start; ; ) {
      const page = await this.list({ ...filters, limit: pageSize, offset });
      yield* page.chats;
      offset += page.chats.length;
      if (page.chats.length < pageSize || offset >= page.count) return;
    }
  }

  read(id: string): Promise<ChatCommandResult> {
    return this.call('GET', '/chats/chat/read', { query: { id } });
  }

  unread(id: string): Promise<ChatCommandResult> {
    return this.call('GET', '/chats/chat/unread', { query: { id } });
  }

  /** Sets the agent's task done (202: processed in background); a 503 is retried. */
  done(id: string): Promise<ResultOf<'doneChat', 202>> {
    return this.call('GET', '/chats/chat/done', { query: { id }, retryUnavailable: true });
  }

  /** Sets the agent's task not done (202: processed in background); a 503 is retried. */
  undone(id: string): Promise<ResultOf<'undoneChat', 202>> {
    return this.call('GET', '/chats/chat/undone', { query: { id }, retryUnavailable: true });
  }

  /** Bans a chat by its chat key (`uniqueId`). */
  ban(uniqueId: string): Promise<ResultOf<'banChat'>> {
    return this.call('GET', '/chats/chat/ban', { query: { uniqueId } });
  }

  unban(uniqueId: string): Promise<ResultOf<'unbanChat'>> {
    return this.call('GET', '/chats/chat/unban', { query: { uniqueId } });
  }
}

/** Tags (spec, Endpoints → Tags). */
export class TagsApi {
  constructor(private readonly call: Call) {}

  /** Tags, most used first. */
  list(query: QueryOf<'listTags'> = {}): Promise<TagList> {
    return this.call('GET', '/chats/chat/tags', { query });
  }

  create(tag: string): Promise<ResultOf<'createTag'>> {
    return this.call('GET', '/chats/chat/tags/create', { query: { tag } });
  }

  /** Attaches a tag to a chat (the tag is created when missing). */
  tagChat(id: string, tag: string): Promise<ResultOf<'tagChat'>> {
    return this.call('GET', '/chats/chat/tags/tag-chat', { query: { id, tag } });
  }

  removeFromChat(id: string, tag: string): Promise<ResultOf<'removeTagFromChat'>> {
    return this.call('DELETE', '/chats/chat/tags/remove-from-chat', { query: { id, tag } });
  }

  /** Deletes a tag from the account and from every chat. */
  remove(tag: string): Promise<ResultOf<'removeTag'>> {
    return this.call('DELETE', '/chats/chat/tags/remove', { query: { tag } });
  }
}

/** send-message-universal (spec, Endpoints → Messages). */
export class MessagesApi {
  constructor(private readonly call: Call) {}

  /** Adds a message to a chat of an API channel (JSON, or multipart/form-data when files are given). */
  async send(input: SendMessageInput): Promise<void> {
    const { files, ...fields } = input;
    const body = { ...fields, channel: 'custom' as const };
    if (!files || files.length === 0) {
      await this.call('POST', '/chats/chat/send-message-universal', { json: body });
      return;
    }
    const form = new FormData();
    for (const [name, value] of Object.entries(body)) if (value !== undefined) form.append(name, String(value));
    for (const file of files) {
      const { blob, name } = toBlob(file);
      form.append('files', blob, name);
    }
    await this.call('POST', '/chats/chat/send-message-universal', { form });
  }
}

/** Answer feedback (spec, Endpoints → Answer feedback). */
export class FeedbackApi {
  constructor(private readonly call: Call) {}

  /** Marks an agent reply correct. */
  like(messageId: string): Promise<ResultOf<'likeMessage'>> {
    return this.call('GET', '/chats/chat/like', { query: { messageId } });
  }

  /** Marks an agent reply incorrect and saves `textEdit` as the answer in the channel's knowledge base. */
  dislike(messageId: string, textEdit: string): Promise<ResultOf<'dislikeMessage'>> {
    return this.call('POST', '/chats/chat/dislike', { json: { messageId, textEdit } });
  }
}

export interface IterateEventsOptions {
  /** A cursor kept from an earlier event (`event.cursor`) or page (`nextCursor`); omitted: the oldest event kept. */
  after?: string | undefined;
  /** Events per request (1–1000, default 100). */
  limit?: number;
  /** Keep polling for new events once caught up (until `signal` aborts); default false: stop when caught up. */
  follow?: boolean;
  /** Pause between polls when following, ms (default 2000). */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

/** The event feed (`GET /api/v1/events`): the account's webhook events in commit order. */
export class EventsApi {
  constructor(private readonly call: Call) {}

  list(query: ListEventsQuery = {}): Promise<EventPage> {
    return this.call('GET', '/events', { query });
  }

  /**
   * Every event after `after`, oldest first. Keep the `cursor` of the last event you handled: passing it as `after`
   * later resumes exactly there (nothing skipped, nothing twice).
   */
  async *iterate(options: IterateEventsOptions = {}): AsyncGenerator<FeedEvent, void, undefined> {
    let after = options.after;
    for (;;) {
      if (options.signal?.aborted) return;
      const page = await this.list({ ...(after ? { after } : {}), ...(options.limit ? { limit: options.limit } : {}) });
      yield* page.events;
      after = page.nextCursor ?? after;
      if (page.hasMore) continue;
      if (!options.follow) return;
      await abortableSleep(options.pollIntervalMs ?? 2000, options.signal);
    }
  }
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return sleep(ms);
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
