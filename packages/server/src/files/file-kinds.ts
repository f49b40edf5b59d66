// Which uploads send-message-universal accepts, decided from the bytes alone (spec, Files): a name or a declared
// Content-Type is whatever the sender says, so neither is consulted.
import { open, readFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type * as FileType from 'file-type';
import type { Upload } from './file-storage.ts';

let fileTypeModule: Promise<typeof FileType> | undefined;
/** file-type (about 10 MB with its parsers) is loaded with the first file to look at, not at start. */
function fileType(): Promise<typeof FileType> {
  fileTypeModule ??= import('file-type');
  return fileTypeModule;
}

/** `image`: saved and shown to the agent; `audio`: a voice message; `other`: accepted, not processed. */
export type FileKind = 'image' | 'audio' | 'other';

export interface DetectedFile {
  kind: FileKind;
  contentType: string;
  /** The usual extension of the type, without the dot. */
  extension: string;
}

const JPEG: DetectedFile = { kind: 'image', contentType: 'image/jpeg', extension: 'jpg' };
const PNG: DetectedFile = { kind: 'image', contentType: 'image/png', extension: 'png' };
const MP3: DetectedFile = { kind: 'audio', contentType: 'audio/mpeg', extension: 'mp3' };
const DOC: DetectedFile = { kind: 'other', contentType: 'application/msword', extension: 'doc' };
const XLS: DetectedFile = { kind: 'other', contentType: 'application/vnd.ms-excel', extension: 'xls' };
const TXT: DetectedFile = { kind: 'other', contentType: 'text/plain', extension: 'txt' };

/** file-type's verdicts (its `ext`) that the spec accepts; anything it names but this map lacks is refused. */
const ACCEPTED = new Map<string, DetectedFile>([
  ['jpg', JPEG],
  ['png', PNG],
  ['apng', PNG], // an animated PNG is a PNG to every viewer
  ['gif', { kind: 'image', contentType: 'image/gif', extension: 'gif' }],
  ['webp', { kind: 'image', contentType: 'image/webp', extension: 'webp' }],
  ['mp3', MP3],
  ['wav', { kind: 'audio', contentType: 'audio/wav', extension: 'wav' }],
  ['pdf', { kind: 'other', contentType: 'application/pdf', extension: 'pdf' }],
  ['docx', { kind: 'other', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' }],
  ['xlsx', { kind: 'other', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' }],
  ['mp4', { kind: 'other', contentType: 'video/mp4', extension: 'mp4' }],
  ['avi', { kind: 'other', contentType: 'video/x-msvideo', extension: 'avi' }],
]);

/**
 * The accepted kind of an upload, or undefined when the spec rejects it (400). `declaredName` is taken for the
 * caller's convenience and deliberately ignored: a `photo.png` that is an executable is an executable.
 */
export async function detectFile(bytes: Buffer, _declaredName: string): Promise<DetectedFile | undefined> {
  let found: { ext: string } | undefined;
  try {
    found = await (await fileType()).fileTypeFromBuffer(bytes);
  } catch {
    return undefined; // a container too broken to parse is not an accepted file either
  }
  if (!found) return isPlainText(bytes) ? TXT : undefined;
  if (found.ext === 'cfb') return legacyOfficeKind(bytes);
  if (found.ext === 'mp3' && !isId3Tagged(bytes) && !isMp3FrameHeader(bytes)) return undefined;
  return ACCEPTED.get(found.ext);
}

/**
 * `detectFile` for an upload in memory or on disk. On disk, file-type reads only what it needs, and the text check
 * reads 64 kB at a time and yields between chunks, so ten 10 MB files never hold the event loop.
 */
export async function detectUpload(upload: Upload): Promise<DetectedFile | undefined> {
  if ('bytes' in upload) return detectFile(upload.bytes, upload.name);
  let found: { ext: string } | undefined;
  try {
    found = await (await fileType()).fileTypeFromFile(upload.path);
  } catch {
    return undefined;
  }
  if (!found) return (await isPlainTextFile(upload.path)) ? TXT : undefined;
  if (found.ext === 'cfb') return legacyOfficeKind(await readFile(upload.path)); // at most 10 MB, rare
  if (found.ext === 'mp3') {
    const head = await readHead(upload.path, 4);
    if (!isId3Tagged(head) && !isMp3FrameHeader(head)) return undefined;
  }
  return ACCEPTED.get(found.ext);
}

async function readHead(file: string, length: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(length), 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function isPlainTextFile(file: string): Promise<boolean> {
  const check = plainTextChecker();
  const handle = await open(file, 'r');
  try {
    for await (const chunk of handle.createReadStream({ highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
      if (!check.push(chunk)) return false;
      await nextTurn();
    }
  } finally {
    await handle.close();
  }
  return check.end();
}

function isId3Tagged(bytes: Buffer): boolean {
  return bytes.subarray(0, 3).toString('latin1') === 'ID3';
}

/** file-type calls any 0xFFE sync with layer bits 01 an MP3; also require a real bitrate and sample rate. */
function isMp3FrameHeader(bytes: Buffer): boolean {
  if (bytes.length < 4) return false;
  const [sync, flags, rates] = [bytes[0] ?? 0, bytes[1] ?? 0, bytes[2] ?? 0];
  const version = (flags >> 3) & 0b11;
  const layer = (flags >> 1) & 0b11;
  const bitrate = rates >> 4;
  const sampleRate = (rates >> 2) & 0b11;
  return sync === 0xff && (flags & 0xe0) === 0xe0 && version !== 0b01 && layer === 0b01 && bitrate !== 0b1111 && sampleRate !== 0b11;
}

// --- Legacy Office (Compound File Binary) --------------------------------------------------------------------

const CFB_HEADER_SIZE = 512;
const CFB_ENTRY_SIZE = 128;
const CFB_STREAM = 2;

/** DOC and XLS share the CFB container; the directory tells them apart. Other CFB files (PPT, MSI, MSG) are refused. */
function legacyOfficeKind(bytes: Buffer): DetectedFile | undefined {
  if (hasCfbStream(bytes, 'WordDocument')) return DOC;
  if (hasCfbStream(bytes, 'Workbook') || hasCfbStream(bytes, 'Book')) return XLS; // Book: Excel 5/95
  return undefined;
}

/**
 * True when a directory entry names a stream `name`. Entries are 128 bytes, sector-aligned after the header,
 * so a match must sit on a 128-byte boundary with the right name length and the stream type: the same UTF-16
 * text inside some stream's data does not count.
 */
function hasCfbStream(bytes: Buffer, name: string): boolean {
  const entryName = Buffer.from(`${name}\0`, 'utf16le');
  for (let at = bytes.indexOf(entryName, CFB_HEADER_SIZE); at !== -1; at = bytes.indexOf(entryName, at + 1)) {
    if (at % CFB_ENTRY_SIZE !== 0 || at + CFB_ENTRY_SIZE > bytes.length) continue;
    if (bytes.readUInt16LE(at + 64) === entryName.length && bytes[at + 66] === CFB_STREAM) return true;
  }
  return false;
}

// --- Plain text ----------------------------------------------------------------------------------------------

const TAB = 0x09;
const LF = 0x0a;
const FF = 0x0c;
const CR = 0x0d;

/**
 * TXT has no magic number: valid UTF-8 with no control characters but tab, LF, FF and CR (so no executable or
 * other binary passes), and not markup (HTML, SVG and XML start with `<`; they are documents a browser runs).
 */
export function isPlainText(bytes: Buffer): boolean {
  const check = plainTextChecker();
  return check.push(bytes) && check.end();
}

/** The plain-text rules over a file given in chunks: `push` each (false = not text, stop), then `end`. */
function plainTextChecker(): { push(chunk: Buffer): boolean; end(): boolean } {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let total = 0;
  let previous = 0;
  /** Undefined until the first character that is not white space has been seen. */
  let startsWithMarkup: boolean | undefined;
  const look = (text: string) => {
    if (startsWithMarkup !== undefined) return;
    const trimmed = text.trimStart();
    if (trimmed) startsWithMarkup = trimmed.startsWith('<');
  };
  return {
    push(chunk) {
      total += chunk.length;
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i] ?? 0;
        if (byte < 0x20 && byte !== TAB && byte !== LF && byte !== FF && byte !== CR) return false;
        if (byte === 0x7f) return false;
        // U+0080–U+009F (C1 controls) are C2 80–C2 9F in UTF-8; in valid UTF-8 a C2 byte always starts a character.
        if (previous === 0xc2 && byte >= 0x80 && byte <= 0x9f) return false;
        previous = byte;
      }
      try {
        look(decoder.decode(chunk, { stream: true }));
      } catch {
        return false;
      }
      return true;
    },
    end() {
      try {
        look(decoder.decode());
      } catch {
        return false;
      }
      return total > 0 && startsWithMarkup !== true;
    },
  };
}

// --- Names ---------------------------------------------------------------------------------------------------

const EXTENSION_ALIASES: Readonly<Record<string, readonly string[]>> = {
  jpg: ['jpg', 'jpeg', 'jpe', 'jfif'],
  wav: ['wav', 'wave'],
  txt: ['txt', 'text'],
};
const MAX_NAME_LENGTH = 200;

/** Control characters and the bidirectional marks that can disguise an extension ("gpj.exe" shown as "exe.jpg"). */
function isUnsafeCharacter(character: string): boolean {
  const code = character.codePointAt(0) ?? 0;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/**
 * The name to store and show for an upload: the sender's base name without path parts or control characters, at
 * most 200 characters, ending in the detected type's extension (appended when the sender's one says otherwise,
 * so a download opens with the right program).
 */
export function safeFileName(declaredName: string, extension: string): string {
  const base = declaredName.split(/[/\\]/).pop() ?? '';
  let stem = [...base].filter((character) => !isUnsafeCharacter(character)).join('').replace(/^[.\s]+|[.\s]+$/g, '');
  const dot = stem.lastIndexOf('.');
  const given = dot > 0 ? stem.slice(dot + 1).toLowerCase() : '';
  let suffix = `.${extension}`;
  if ((EXTENSION_ALIASES[extension] ?? [extension]).includes(given)) {
    suffix = stem.slice(dot);
    stem = stem.slice(0, dot);
  }
  const room = MAX_NAME_LENGTH - [...suffix].length;
  stem = [...stem].slice(0, room).join('').trimEnd();
  return `${stem || 'file'}${suffix}`;
}

// --- Files from messengers ------------------------------------------------------------------------------------

/** Voice formats the messengers use (Telegram and WhatsApp: Ogg/Opus; Messenger and Instagram: AAC in MP4). */
const MESSENGER_AUDIO = new Map<string, DetectedFile>([
  ['opus', { kind: 'audio', contentType: 'audio/ogg', extension: 'ogg' }],
  ['ogg', { kind: 'audio', contentType: 'audio/ogg', extension: 'ogg' }],
  ['oga', { kind: 'audio', contentType: 'audio/ogg', extension: 'ogg' }],
  ['ogx', { kind: 'audio', contentType: 'audio/ogg', extension: 'ogg' }],
  ['m4a', { kind: 'audio', contentType: 'audio/mp4', extension: 'm4a' }],
  ['mp4', { kind: 'audio', contentType: 'audio/mp4', extension: 'm4a' }],
  ['aac', { kind: 'audio', contentType: 'audio/aac', extension: 'aac' }],
]);

/**
 * The kind of a file a messenger delivered: the spec's accepted types, decided from the bytes as for uploads; and a
 * voice or audio message in the messenger's own voice format is audio too (it goes to the agent as a voice message
 * like an MP3 through the API channel). Undefined: not accepted (the message gets a text note instead).
 */
export async function detectMessengerFile(bytes: Buffer, declared: 'voice' | 'audio' | 'other'): Promise<DetectedFile | undefined> {
  const accepted = await detectFile(bytes, '');
  if (declared === 'other' || accepted?.kind === 'audio') return accepted;
  let found: { ext: string } | undefined;
  try {
    found = await (await fileType()).fileTypeFromBuffer(bytes);
  } catch {
    return undefined;
  }
  return (found && MESSENGER_AUDIO.get(found.ext)) ?? accepted;
}
