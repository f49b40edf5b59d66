// A file that is not what it claims to be, or cannot be read: its message is the spec's answer. Its own module, so
// the main thread (passages.ts, the documents service) has it without loading the parsers' libraries, which only
// the parser's worker threads need (document-text.ts).
export class DocumentError extends Error {
  /** The file passed one of the readers' limits (a bomb stopped midway): its worker is not kept for another file. */
  readonly limit: boolean;

  constructor(message: string, options: { limit?: boolean } = {}) {
    super(message);
    this.name = 'DocumentError';
    this.limit = options.limit ?? false;
  }
}
