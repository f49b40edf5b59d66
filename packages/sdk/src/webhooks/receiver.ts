// The webhook receiver, independent of any HTTP framework: checks the Standard Webhooks signature when given the
// channel's secret, parses and validates the event against the published schemas, deduplicates it, and hands it to
// the user's callbacks after the answer is sent (the spec wants 2xx within 2 seconds). Adapters: ./adapters.ts.
import type { DialogStatusChangedEvent, NewMessagesEvent, TaskTriggerEvent, WebhookEvent } from '@parley/contracts';
import { MemoryDedupeStore, type DedupeStore } from './dedupe.ts';
import { WEBHOOK_SCHEMAS } from './schemas.generated.ts';
import { signatureProblem } from './signature.ts';
import { validate } from './validate.ts';

export type { DialogStatusChangedEvent, NewMessagesEvent, TaskTriggerEvent, WebhookEvent };

/** What a callback gets beside the event. */
export interface EventContext {
  /** `webhook-id` of the delivery (signed deliveries only). */
  deliveryId: string | undefined;
  /** `webhook` (a delivery) or `feed` (replayed from the event feed through `receiver.process`). */
  source: 'webhook' | 'feed';
}

type Callback<E> = (event: E, context: EventContext) => void | Promise<void>;

export interface WebhookReceiverOptions {
  /**
   * The channel's webhook secret. Given: every request must carry a valid Standard Webhooks signature (else 401).
   * Not given: requests are not checked (the spec's default: deliveries are not signed).
   */
  secret?: string | undefined;
  /** Largest accepted difference between `webhook-timestamp` and this clock, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Where handled events are remembered (default: in memory, the 100 000 latest); `false`: no deduplication. */
  dedupe?: DedupeStore | false;
  /** Largest body read, in bytes (default 1 MiB; a bigger one is 413). */
  maxBodyBytes?: number;
  /** New messages; with deduplication, `messages` holds only those not handled before (never empty). */
  onNewMessages?: Callback<NewMessagesEvent>;
  onTaskTrigger?: Callback<TaskTriggerEvent>;
  onDialogStatusChanged?: Callback<DialogStatusChangedEvent>;
  /** Every event, after the callback of its kind. */
  onEvent?: Callback<WebhookEvent>;
  /** A callback threw (default: console.error). The event's dedupe keys are released, so a replay handles it again. */
  onError?: (error: unknown, event: WebhookEvent) => void;
}

/** A request as the adapters pass it: the raw body and the headers (lower-case names). */
export interface WebhookRequest {
  body: Uint8Array;
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** The answer to send, and the work to start once it is sent. */
export interface WebhookResult {
  status: number;
  body: { ok: true; duplicate?: boolean } | { message: string };
  /** Runs the callbacks (never rejects: failures go to onError). Call it after the answer is written. */
  dispatch(): Promise<void>;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function header(headers: WebhookRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export class WebhookReceiver {
  readonly #options: WebhookReceiverOptions;
  readonly #dedupe: DedupeStore | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  readonly maxBodyBytes: number;

  constructor(options: WebhookReceiverOptions = {}) {
    this.#options = options;
    this.#dedupe = options.dedupe === false ? undefined : (options.dedupe ?? new MemoryDedupeStore());
    this.maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  }

  /** True when a secret was given: every request must then be signed. */
  get verifiesSignatures(): boolean {
    return this.#options.secret !== undefined;
  }

  /** Checks, parses and deduplicates one delivery; the answer to send and the callbacks to run after it. */
  async handle(request: WebhookRequest): Promise<WebhookResult> {
    const deliveryId = header(request.headers, 'webhook-id');
    if (this.#options.secret !== undefined) {
      const problem = await signatureProblem(
        this.#options.secret,
        { id: deliveryId, timestamp: header(request.headers, 'webhook-timestamp'), signature: header(request.headers, 'webhook-signature') },
        request.body,
        this.#options.toleranceSeconds ?? 300,
        Math.floor(Date.now() / 1000),
      );
      if (problem) return refused(401, `Invalid signature: ${problem}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(decoder.decode(request.body));
    } catch {
      return refused(400, 'Invalid event: the body is not JSON');
    }
    return this.#accept(parsed, { deliveryId, source: 'webhook' });
  }

  /**
   * Handles an event that did not come as a webhook (e.g. `for await (const e of client.events.iterate(...))
   * await receiver.process(e.payload)`), with the same validation, deduplication and callbacks. Resolves when
   * the callbacks have run; rejects on an invalid event. The feed's own events, which no webhook gets
   * (`chat_handed_off`), are passed over, so a replay loop goes on past them.
   */
  async process(payload: unknown): Promise<void> {
    if (isFeedOnlyEvent(payload)) return;
    const result = await this.#accept(payload, { deliveryId: undefined, source: 'feed' });
    if (result.status !== 200) throw new TypeError('message' in result.body ? result.body.message : 'Invalid event');
    await result.dispatch();
  }

  /** Resolves when every callback started so far has finished (for a graceful shutdown, and for tests). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  async #accept(payload: unknown, context: EventContext): Promise<WebhookResult> {
    const problem = invalidEvent(payload);
    if (problem) return refused(400, `Invalid event: ${problem}`);
    const event = payload as WebhookEvent;
    const claimed = await this.#claim(event);
    if (!claimed) return { status: 200, body: { ok: true, duplicate: true }, dispatch: async () => {} };
    return {
      status: 200,
      body: { ok: true },
      dispatch: () => {
        const run = this.#run(claimed.event, claimed.keys, context);
        this.#inFlight.add(run);
        void run.finally(() => this.#inFlight.delete(run));
        return run;
      },
    };
  }

  /** Claims the event's dedupe keys: the event to hand over (new messages only), or undefined for a duplicate. */
  async #claim(event: WebhookEvent): Promise<{ event: WebhookEvent; keys: string[] } | undefined> {
    const store = this.#dedupe;
    if (!store) return { event, keys: [] };
    if (event.event === 'new_messages') {
      const fresh = [];
      for (const message of event.messages) if (await store.claim(`message:${message.id}`)) fresh.push(message);
      if (fresh.length === 0) return undefined;
      return { event: { ...event, messages: fresh }, keys: fresh.map((m) => `message:${m.id}`) };
    }
    // dialog_status_changed has its eventId; a task_trigger has no id of its own: the hash of its content.
    const key = event.event === 'dialog_status_changed' ? `status:${event.eventId}` : `trigger:${await sha256Hex(JSON.stringify(event))}`;
    return (await store.claim(key)) ? { event, keys: [key] } : undefined;
  }

  async #run(event: WebhookEvent, keys: string[], context: EventContext): Promise<void> {
    const options = this.#options;
    try {
      if (event.event === 'new_messages') await options.onNewMessages?.(event, context);
      else if (event.event === 'task_trigger') await options.onTaskTrigger?.(event, context);
      else await options.onDialogStatusChanged?.(event, context);
      await options.onEvent?.(event, context);
    } catch (error) {
      for (const key of keys) await this.#dedupe?.release?.(key);
      (options.onError ?? ((e: unknown) => console.error('parley webhook callback failed', e)))(error, event);
    }
  }
}

function refused(status: number, message: string): WebhookResult {
  return { status, body: { message }, dispatch: async () => {} };
}

/** Why the payload is not a webhook event of the published schemas, or undefined when it is one. */
export function invalidEvent(payload: unknown): string | undefined {
  const kind = typeof payload === 'object' && payload !== null ? (payload as { event?: unknown }).event : undefined;
  if (kind !== 'new_messages' && kind !== 'task_trigger' && kind !== 'dialog_status_changed') {
    return '/event must be one of new_messages, task_trigger, dialog_status_changed';
  }
  return validate(WEBHOOK_SCHEMAS[kind], payload).slice(0, 5).join('; ') || undefined;
}

/** A receiver with these options (see WebhookReceiverOptions). */
export function createWebhookReceiver(options: WebhookReceiverOptions = {}): WebhookReceiver {
  return new WebhookReceiver(options);
}

/** An event of the feed that is not a webhook event (`chat_handed_off`: the agent handed a chat to the team). */
function isFeedOnlyEvent(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && (payload as { event?: unknown }).event === 'chat_handed_off';
}
