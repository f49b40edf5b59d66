// The questions of an uploaded replay file (issue #37): a CSV with the header `question,answer[,conversationId]`
// (RFC 4180: quoted fields with commas, quotes doubled, line breaks; CRLF or LF; a UTF-8 BOM) or a JSON array of
// `{ question, answer[, conversationId] }`. A malformed file is a 400 naming what is wrong and where (rows count
// from 1, the CSV header aside).
import { REPLAY_MAX_ROWS, type ReplayAnsweredBy } from '@parley/contracts';
import { Errors } from '../errors.ts';

export interface ReplayRow {
  question: string;
  /** The team's answer; null when the row has none. */
  teamAnswer: string | null;
  /** Whose past reply `teamAnswer` is (a file's rows: the team's). */
  answeredBy?: ReplayAnsweredBy;
  conversationId: string | null;
}

/** A question or answer longer than this is cut (the agent looks at far less: retrieval.ts MAX_QUERY_CHARS). */
export const REPLAY_TEXT_MAX = 10_000;

const bad = (reason: string) => Errors.replayFileInvalid(reason);

function clean(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = value.replaceAll('\u0000', '').trim();
  if (text.length === 0) return null;
  return (text.isWellFormed() ? text : text.toWellFormed()).slice(0, REPLAY_TEXT_MAX);
}

function rowOf(n: number, question: string | null | undefined, answer: string | null | undefined, conversationId: string | null | undefined): ReplayRow {
  const q = clean(question);
  if (q === null) throw bad(`row ${n} has no question`);
  return { question: q, teamAnswer: clean(answer), conversationId: clean(conversationId)?.slice(0, 200) ?? null };
}

/** RFC 4180 records of the text: each a list of fields (a blank line is a record of one empty field). */
export function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  let record = 1;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i += 1;
        continue;
      }
      field += c;
      i += 1;
      continue;
    }
    if (c === '"' && field.length === 0) {
      quoted = true;
      i += 1;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      i += 1;
    } else if (c === '\r' || c === '\n') {
      fields.push(field);
      records.push(fields);
      fields = [];
      field = '';
      record += 1;
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += c;
      i += 1;
    }
    if (records.length > REPLAY_MAX_ROWS + 1 + 1000) break; // far past the limit: no need to read on
  }
  if (quoted) throw bad(`CSV record ${record}: a quoted field is not closed`);
  if (field.length > 0 || fields.length > 0) {
    fields.push(field);
    records.push(fields);
  }
  return records;
}

function fromCsv(text: string): ReplayRow[] {
  const records = csvRecords(text).filter((fields) => !(fields.length === 1 && fields[0]?.trim() === ''));
  const header = records.shift()?.map((name) => name.trim().toLowerCase());
  const columns = header?.join(',');
  if (columns !== 'question,answer' && columns !== 'question,answer,conversationid') {
    throw bad(`the CSV header must be question,answer or question,answer,conversationId (found: ${(columns ?? '').slice(0, 100)})`);
  }
  tooMany(records.length);
  return records.map((fields, i) => {
    if (fields.length !== header?.length) throw bad(`row ${i + 1} has ${fields.length} fields; the header has ${header?.length}`);
    return rowOf(i + 1, fields[0], fields[1], fields[2]);
  });
}

function fromJson(text: string): ReplayRow[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bad('not valid JSON: send a JSON array of { question, answer }, or a CSV with the header question,answer');
  }
  if (!Array.isArray(parsed)) throw bad('the JSON must be an array of { question, answer }');
  tooMany(parsed.length);
  return parsed.map((item: unknown, i) => {
    const n = i + 1;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw bad(`row ${n} must be an object { question, answer }`);
    const { question, answer, conversationId, ...rest } = item as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined) throw bad(`row ${n}: property ${unknown.slice(0, 50)} should not exist`);
    for (const [name, value] of Object.entries({ question, answer, conversationId })) {
      if (value !== undefined && value !== null && typeof value !== 'string') throw bad(`row ${n}: ${name} must be a string`);
    }
    return rowOf(n, question as string | undefined, answer as string | undefined, conversationId as string | undefined);
  });
}

function tooMany(rows: number): void {
  if (rows > REPLAY_MAX_ROWS) throw bad(`at most ${REPLAY_MAX_ROWS.toLocaleString('en-US')} rows (found ${rows.toLocaleString('en-US')})`);
}

/** The rows of an uploaded file, CSV or JSON by its name, its type or its first character. */
export function parseReplayFile(bytes: Buffer, name: string, contentType: string): ReplayRow[] {
  if (bytes.includes(0)) throw bad('not a CSV or JSON file');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw bad('not a CSV or JSON file (the text must be UTF-8)');
  }
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const start = text.trimStart();
  if (start.length === 0) throw bad('the file is empty');
  const json = /\.json$/i.test(name) || /json/i.test(contentType) || start.startsWith('[') || start.startsWith('{');
  const rows = json ? fromJson(text) : fromCsv(text);
  if (rows.length === 0) throw bad('the file has no rows');
  return rows;
}
