// The HTTP server's request listener, in front of Fastify's request cycle: a request a surface can answer from memory
// (the public API's repeated refusals, public/refusal-memory.ts) is answered there; every other request goes on to
// Fastify. Nothing answers here once the app is closing (Fastify then answers 503 by itself).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers `request` and returns true, or returns false and writes nothing. */
export type FrontAnswer = (request: IncomingMessage, response: ServerResponse) => boolean;

/** An answer given at the front door, for what observes every response (metrics/module.ts). */
export type FrontAnswered = (method: string, route: string, statusCode: number, seconds: number) => void;

export class FrontDoor {
  private readonly answers: FrontAnswer[] = [];
  private readonly observers: FrontAnswered[] = [];
  private closing = false;

  /** Adds a surface's answer from memory (tried in the order added). */
  answerWith(answer: FrontAnswer): void {
    this.answers.push(answer);
  }

  /** Told of every answer given here, as Fastify's onResponse hooks are of the others. */
  observe(observer: FrontAnswered): void {
    this.observers.push(observer);
  }

  get observed(): boolean {
    return this.observers.length > 0;
  }

  answered(method: string, route: string, statusCode: number, seconds: number): void {
    for (const observer of this.observers) observer(method, route, statusCode, seconds);
  }

  close(): void {
    this.closing = true;
  }

  /** Whether `request` was answered here. */
  answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (this.closing) return false;
    for (const answer of this.answers) if (answer(request, response)) return true;
    return false;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The request listener's answers from memory, before Fastify's request cycle (http/front-door.ts). */
    frontDoor: FrontDoor;
  }
}
