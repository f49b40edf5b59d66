// One access-log line per request (docs/operations.md): Fastify's own logging would write two (incoming and
// completed) with the whole request and reply serialized.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

export class AccessLog extends LogController {
  /**
   * Where the lines go: the process's logger without its redaction. A line holds five plain values (no object
   * that a redacted path could reach), and pino's wildcard paths (`*.password`…) otherwise ran over every field of
   * every line: a third of a refused request's logging. The request id is the line's first field, where the
   * request's own child logger put it, so the line reads as before.
   */
  private readonly lines: FastifyBaseLogger;

  constructor(logger: FastifyBaseLogger) {
    super();
    this.lines = logger.child({}, { redact: [] });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      super.requestCompleted(error, request, reply);
      return;
    }
    this.lines.info(
      {
        reqId: request.id,
        method: request.method,
        url: request.url,
        ip: request.ip,
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  }
}
