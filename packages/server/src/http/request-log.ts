// Each request's logger (`request.log`, `reply.log`), made when the request first writes to it. Most requests
// write nothing but their access-log line (access-log.ts, which does not use it), and Fastify made a pino child
// for every request: its bindings (the request id) serialized through the log's redaction, a few µs per request.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

/** A log call's arguments: an object or a message first, then the message and its interpolation values. */
type LogArgs = [objOrMessage: unknown, message?: string, ...values: unknown[]];

class RequestLog implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions | undefined,
  ) {}

  /** The pino child itself, made on the first line (with the options Fastify gave, when any). */
  private logger(): FastifyBaseLogger {
    this.made ??= this.options ? this.parent.child(this.bindings, this.options) : this.parent.child(this.bindings);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.options?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: LogArgs): void {
    this.logger().fatal(...args);
  }
  error(...args: LogArgs): void {
    this.logger().error(...args);
  }
  warn(...args: LogArgs): void {
    this.logger().warn(...args);
  }
  info(...args: LogArgs): void {
    this.logger().info(...args);
  }
  debug(...args: LogArgs): void {
    this.logger().debug(...args);
  }
  trace(...args: LogArgs): void {
    this.logger().trace(...args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: the request's logger, made on its first line. */
export const requestLog: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new RequestLog(logger, bindings, Object.keys(options).length > 0 ? options : undefined);
