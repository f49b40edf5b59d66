// A file that is not what it claims to be, or cannot be read: its message is the spec's answer. Its own module, so
// the main thread (passages.ts, the documents service) has it without loading the parsers' libraries, which only
// the parser's worker threads need (document-text.ts).
export class DocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentError';
  }
}
