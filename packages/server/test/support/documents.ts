// Real documents made byte by byte for the tests: PDFs (text in Helvetica at chosen sizes, one content stream per
// page; optionally encrypted with the standard security handler, RC4 40-bit, as PDF 1.3 writers do) and DOCX files
// (a ZIP of WordprocessingML with heading styles), so the parsers meet what a word processor writes.
import { createHash } from 'node:crypto';
import { constants as zlibConstants, crc32, deflateRawSync } from 'node:zlib';

// --- PDF ------------------------------------------------------------------------------------------------------

/** One line of a page: its text and font size (a heading is simply larger, as in most exported PDFs). */
export interface PdfLine {
  text: string;
  size?: number;
}

/** The padding of the standard security handler (PDF 1.7, 7.6.3.3, Algorithm 2). */
const PASSWORD_PAD = Buffer.from(
  '28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a',
  'hex',
);

function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + (s[i] ?? 0) + (key[i % key.length] ?? 0)) & 255;
    [s[i], s[j]] = [s[j] ?? 0, s[i] ?? 0];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + (s[i] ?? 0)) & 255;
    [s[i], s[j]] = [s[j] ?? 0, s[i] ?? 0];
    out[n] = (data[n] ?? 0) ^ (s[((s[i] ?? 0) + (s[j] ?? 0)) & 255] ?? 0);
  }
  return out;
}

const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();
const padded = (password: string) => Buffer.concat([Buffer.from(password, 'latin1'), PASSWORD_PAD]).subarray(0, 32);

/** The text of a PDF string literal: backslash, parentheses escaped; Latin-1 (WinAnsi) bytes. */
function pdfString(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}

/**
 * A PDF of the pages given (each a list of lines, top to bottom; no pages at all: one blank page). With
 * `userPassword`, it is encrypted (R2, 40-bit RC4): it cannot be read without the password.
 */
export function makePdf(pages: PdfLine[][], options: { userPassword?: string } = {}): Buffer {
  const pageList = pages.length > 0 ? pages : [[]];
  const id = createHash('md5').update(JSON.stringify(pages)).digest();
  const objects: { body: (encrypt: (n: number, data: Buffer) => Buffer) => Buffer }[] = [];
  const add = (body: (typeof objects)[number]['body']) => {
    objects.push({ body });
    return objects.length;
  };
  const text = (s: string) => () => Buffer.from(s, 'latin1');
  const catalog = add(text('<< /Type /Catalog /Pages 2 0 R >>'));
  const pagesRef = add(text('')); // filled below, once the kids are known
  const font = add(text('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>'));
  const kids: number[] = [];
  for (const lines of pageList) {
    let y = 760;
    const ops = ['BT'];
    for (const line of lines) {
      const size = line.size ?? 11;
      y -= size * 1.5;
      ops.push(`/F1 ${size} Tf 1 0 0 1 56 ${y} Tm (${pdfString(line.text)}) Tj`);
    }
    ops.push('ET');
    const content = Buffer.from(ops.join('\n'), 'latin1');
    const contentRef = objects.length + 1;
    add((encrypt) => {
      const data = encrypt(contentRef, content);
      return Buffer.concat([Buffer.from(`<< /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
    });
    kids.push(
      add(text(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${contentRef} 0 R >>`)),
    );
  }
  objects[pagesRef - 1] = { body: text(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`) };

  let encrypt = (_n: number, data: Buffer) => data;
  let trailerExtra = `/ID [<${id.toString('hex')}> <${id.toString('hex')}>]`;
  if (options.userPassword !== undefined) {
    const permissions = -44;
    const ownerKey = md5(padded('owner-password')).subarray(0, 5);
    const o = rc4(ownerKey, padded(options.userPassword));
    const p = Buffer.alloc(4);
    p.writeInt32LE(permissions);
    const key = md5(padded(options.userPassword), o, p, id).subarray(0, 5);
    const u = rc4(key, PASSWORD_PAD);
    encrypt = (n, data) => {
      const objectKey = md5(key, Buffer.from([n & 255, (n >> 8) & 255, (n >> 16) & 255, 0, 0])).subarray(0, 10);
      return rc4(objectKey, data);
    };
    const encryptRef = add(text(`<< /Filter /Standard /V 1 /R 2 /O <${o.toString('hex')}> /U <${u.toString('hex')}> /P ${permissions} >>`));
    trailerExtra += ` /Encrypt ${encryptRef} 0 R`;
  }

  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = chunks[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), object.body(encrypt), Buffer.from('\nendobj\n', 'latin1')]);
    chunks.push(chunk);
    offset += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R ${trailerExtra} >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(chunks);
}

// --- DOCX -----------------------------------------------------------------------------------------------------

/** A ZIP archive of the files given, stored (no compression), as any unzip reads it. */
export function makeZip(files: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A paragraph of a Word document: body text, a heading of level 1–3 (Word's built-in Heading styles), or raw
 * WordprocessingML for the body (tables, text boxes, tracked changes; the style `Titre1` is a French Word's name for
 * "heading 1").
 */
export type DocxParagraph = string | { heading: 1 | 2 | 3; text: string } | { xml: string };

export function makeDocx(paragraphs: DocxParagraph[]): Buffer {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const body = paragraphs
    .map((p) => {
      if (typeof p !== 'string' && 'xml' in p) return p.xml;
      const style = typeof p === 'string' ? '' : `<w:pPr><w:pStyle w:val="Heading${p.heading}"/></w:pPr>`;
      const text = typeof p === 'string' ? p : p.text;
      return `<w:p>${style}<w:r><w:t xml:space="preserve">${xmlText(text)}</w:t></w:r></w:p>`;
    })
    .join('');
  const styles = [1, 2, 3]
    .map((level) => `<w:style w:type="paragraph" w:styleId="Heading${level}"><w:name w:val="heading ${level}"/><w:basedOn w:val="Normal"/></w:style>`)
    .join('') + '<w:style w:type="paragraph" w:styleId="Titre1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/></w:style>';
  return makeZip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/_rels/document.xml.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
    'word/styles.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>${styles}</w:styles>`,
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`,
  });
}

// --- A returns policy, as a shop would publish it ---------------------------------------------------------------

/** The sections of the sample returns policy: heading, then the lines of its body text. */
export const RETURNS_POLICY: { heading: string; lines: string[] }[] = [
  {
    heading: 'Returning an item',
    lines: ['You can return any unworn item within 30 days of delivery for a full refund.', 'Items must be in their original packaging with the tags attached.'],
  },
  {
    heading: 'Refunds',
    lines: ['Refunds are paid to the original payment method within 5 business days', 'after the returned item reaches our warehouse.'],
  },
  {
    heading: 'Damaged or faulty items',
    lines: ['If an item arrives damaged, send us a photo within 48 hours', 'and we will ship a replacement at no cost to you.'],
  },
  {
    heading: 'Final sale',
    lines: ['Underwear, earrings and gift cards are final sale and cannot be returned.'],
  },
];

/** The returns policy as a PDF: its title at 20 pt, section headings at 15 pt, the text at 11 pt; shipping on page 2. */
export function returnsPolicyPdf(): Buffer {
  const page1: PdfLine[] = [{ text: 'Returns Policy', size: 20 }];
  for (const section of RETURNS_POLICY) page1.push({ text: section.heading, size: 15 }, ...section.lines.map((text) => ({ text })));
  const page2: PdfLine[] = [{ text: 'Shipping', size: 20 }, { text: 'Orders ship within 2 business days from our warehouse in Leeds.' }];
  return makePdf([page1, page2]);
}

/** The passages the returns policy PDF splits into: heading path and text. */
export const RETURNS_POLICY_PASSAGES = [
  ...RETURNS_POLICY.map((section) => ({ headingPath: ['Returns Policy', section.heading], text: section.lines.join(' ') })),
  { headingPath: ['Shipping'], text: 'Orders ship within 2 business days from our warehouse in Leeds.' },
];

// --- Hostile documents ----------------------------------------------------------------------------------------

/**
 * Raw DEFLATE data that inflates to `bytes` bytes of `fill` (a multiple of 1 MB), made in milliseconds: one
 * megabyte compressed with a full flush (byte-aligned, no reference back past it) repeated, then a final empty
 * block. About 1,000 to 1: a gigabyte in a megabyte.
 */
function deflateRepeated(fill: string, bytes: number): Buffer {
  const megabyte = Buffer.alloc(1024 * 1024, fill);
  const segment = deflateRawSync(megabyte, { level: 9, finishFlush: zlibConstants.Z_FULL_FLUSH });
  const count = Math.ceil(bytes / megabyte.length);
  return Buffer.concat([...Array.from({ length: count }, () => segment), Buffer.from([0x03, 0x00])]);
}

/**
 * A DOCX whose `word/document.xml` inflates to `inflatedBytes` (1 GB by default, about 1 MB uploaded): `fill`
 * `text` makes it one paragraph of that many letters, `markup` that many spaces between two elements. Its ZIP
 * headers declare the true sizes (lying about them is what a reader must not trust anyway).
 */
export function docxBomb(inflatedBytes = 1024 * 1024 * 1024, fill: 'text' | 'markup' = 'markup'): Buffer {
  const plain = makeDocx(['placeholder']);
  const start = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const paragraph = '<w:p><w:r><w:t>Hidden';
  const head = fill === 'text' ? `${start}${paragraph}` : start;
  const tail = fill === 'text' ? '</w:t></w:r></w:p></w:body></w:document>' : `${paragraph}</w:t></w:r></w:p></w:body></w:document>`;
  const text = deflateRepeated(fill === 'text' ? 'a' : ' ', inflatedBytes);
  const compressed = Buffer.concat([deflateRawSync(head, { finishFlush: zlibConstants.Z_FULL_FLUSH }), text.subarray(0, -2), deflateRawSync(tail)]);
  const size = head.length + Math.ceil(inflatedBytes / (1024 * 1024)) * 1024 * 1024 + tail.length;
  return replaceZipEntry(plain, 'word/document.xml', compressed, size);
}

/** A ZIP (as makeZip writes it) with one entry's data replaced by DEFLATE data of `size` bytes inflated. */
function replaceZipEntry(zip: Buffer, name: string, compressed: Buffer, size: number): Buffer {
  const entries = readStoredZip(zip);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const deflated = entry.name === name;
    const data = deflated ? compressed : entry.data;
    const fileName = Buffer.from(entry.name, 'utf8');
    const crc = deflated ? 0 : crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(deflated ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(deflated ? size : data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(deflated ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(deflated ? size : data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The entries of a ZIP of stored (uncompressed) files written by makeZip, in order. */
function readStoredZip(zip: Buffer): { name: string; data: Buffer }[] {
  const entries: { name: string; data: Buffer }[] = [];
  let offset = 0;
  while (zip.readUInt32LE(offset) === 0x04034b50) {
    const size = zip.readUInt32LE(offset + 18);
    const nameLength = zip.readUInt16LE(offset + 26);
    const start = offset + 30 + nameLength;
    entries.push({ name: zip.subarray(offset + 30, start).toString('utf8'), data: zip.subarray(start, start + size) });
    offset = start + size;
  }
  return entries;
}

/**
 * A one-page PDF whose content stream (FlateDecode) inflates to `inflatedBytes` (1 GB by default) of spaces,
 * with a line of text after them: about 1 MB uploaded. `encrypted`: encrypted with an empty user password (it
 * opens without one), so the stream cannot be inflated before it is decrypted.
 */
export function pdfBomb(inflatedBytes = 1024 * 1024 * 1024, { encrypted = false } = {}): Buffer {
  const raw = Buffer.concat([deflateRepeated(' ', inflatedBytes).subarray(0, -2), deflateRawSync('BT /F1 12 Tf 1 0 0 1 56 700 Tm (Hidden) Tj ET')]);
  // The zlib wrapper: header, the raw data, a checksum (pdf.js does not check it).
  let stream: Buffer = Buffer.concat([Buffer.from([0x78, 0xda]), raw, Buffer.alloc(4)]);
  const id = createHash('md5').update(`bomb ${inflatedBytes}`).digest();
  let trailerExtra = `/ID [<${id.toString('hex')}> <${id.toString('hex')}>]`;
  let encryptObject: Buffer[] = [];
  if (encrypted) {
    // As makePdf: the standard security handler, R2, 40-bit RC4; the content stream is object 5.
    const permissions = -44;
    const o = rc4(md5(padded('owner-password')).subarray(0, 5), padded(''));
    const p = Buffer.alloc(4);
    p.writeInt32LE(permissions);
    const key = md5(padded(''), o, p, id).subarray(0, 5);
    stream = rc4(md5(key, Buffer.from([5, 0, 0, 0, 0])).subarray(0, 10), stream);
    encryptObject = [Buffer.from(`<< /Filter /Standard /V 1 /R 2 /O <${o.toString('hex')}> /U <${rc4(key, PASSWORD_PAD).toString('hex')}> /P ${permissions} >>`)];
    trailerExtra += ' /Encrypt 6 0 R';
  }
  const objects = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [4 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>'),
    Buffer.concat([Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`), stream, Buffer.from('\nendstream')]),
    ...encryptObject,
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let offset = chunks[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    chunks.push(chunk);
    offset += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra} >>\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(chunks);
}

/** One file of a hostile run: what it is uploaded as, and how its document must end (its stored name, when it is cleaned). */
export interface HostileDocument {
  filename: string;
  bytes: Buffer;
  status: 'ready' | 'failed';
  /** The failed document's sentence. */
  error?: string;
  /** The name the document is stored under, when it is not the file name. */
  name?: string;
}

/** UTF-16 big-endian: the little-endian bytes with each pair swapped. */
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();

/**
 * A run of hostile uploads, one after another (issue #41): the decompression bombs, Markdown and HTML nested 100,000
 * deep, odd encodings, odd names, an empty file and a huge single line, each with how it must end. At most about 1 MB
 * each but a Markdown file of two million tokens (5 MB) and the huge line (8 MB). `maxMemoryMb`: the parser's
 * memory limit on this machine, which the sentence of a file past it names.
 */
export function hostileDocuments({ maxMemoryMb }: { maxMemoryMb: number }): HostileDocument[] {
  const MB = 1024 * 1024;
  const prose = 'Refunds are paid within five business days.\n\nItems must be unworn and in their packaging.\n';
  const tooDeepHtml = 'The HTML page nests more than 1,000 levels deep, the limit; it may be damaged.';
  const tooDeepMarkdown = 'The Markdown file nests quotes or lists more than 32 levels deep, the limit; it may be damaged.';
  const notUtf8 = (what: string) => `The file is named as ${what}, but its content is not UTF-8 text; save it as UTF-8 and upload it again.`;
  return [
    { filename: 'bomb.docx', bytes: docxBomb(), status: 'failed', error: 'The Word document inflates to more than 64 MB, the limit; it may be a ZIP bomb or damaged.' },
    {
      filename: 'letters.docx',
      bytes: docxBomb(1024 * MB, 'text'),
      status: 'failed',
      error: 'The document is too long: its text passes 5,000,000 characters, the limit; split it into smaller files.',
    },
    {
      filename: 'ratio.docx',
      bytes: docxBomb(50 * MB),
      status: 'failed',
      error: "The Word document's part word/document.xml inflates more than 100 times its size, the limit; it may be a ZIP bomb or damaged.",
    },
    { filename: 'bomb.pdf', bytes: pdfBomb(), status: 'failed', error: 'The PDF has a stream that inflates to more than 32 MB, the limit; it may be a decompression bomb or damaged.' },
    {
      filename: 'deep.docx',
      bytes: makeDocx([{ xml: `${'<w:sdt><w:sdtContent>'.repeat(100_000)}<w:p><w:r><w:t>Deep</w:t></w:r></w:p>` }]),
      status: 'failed',
      error: "The Word document's XML nests more than 1,000 levels deep, the limit; it may be damaged.",
    },
    { filename: 'quotes.md', bytes: Buffer.from(`${'>'.repeat(100_000)} deep\n`), status: 'failed', error: tooDeepMarkdown },
    { filename: 'lists.md', bytes: Buffer.from(`${'- '.repeat(100_000)}deep\n`), status: 'failed', error: tooDeepMarkdown },
    { filename: 'indented-lists.md', bytes: Buffer.from(Array.from({ length: 1_000 }, (_, i) => `${' '.repeat(2 * i)}- level ${i}`).join('\n')), status: 'failed', error: tooDeepMarkdown },
    { filename: 'brackets.md', bytes: Buffer.from(`${'['.repeat(100_000)}\n`), status: 'ready' },
    { filename: 'emphasis.md', bytes: Buffer.from(`${'*'.repeat(100_000)}a${'*'.repeat(100_000)}\n`), status: 'ready' },
    { filename: 'links.md', bytes: Buffer.from(`${'[a]('.repeat(100_000)}\n`), status: 'ready' },
    {
      filename: 'html-in.md',
      bytes: Buffer.from(`# Deep\n\n${'<div>'.repeat(100_000)}x\n`),
      status: 'failed',
      error: 'The HTML in the Markdown file nests more than 1,000 levels deep, the limit; it may be damaged.',
    },
    { filename: 'entities.md', bytes: Buffer.from('&amp;'.repeat(200_000)), status: 'ready' },
    // 2 million tokens in 5 MB: more than a worker's heap holds, on any machine.
    {
      filename: 'tokens.md',
      bytes: Buffer.from('[a](b) '.repeat(700_000)),
      status: 'failed',
      error: `Reading the file needed more than ${maxMemoryMb} MB of memory, the limit; it may be damaged or too complex.`,
    },
    { filename: 'deep.html', bytes: Buffer.from(`<html><body>${'<div>'.repeat(100_000)}deep</body></html>`), status: 'failed', error: tooDeepHtml },
    { filename: 'deep-inline.html', bytes: Buffer.from(`<p>${'<b><i>'.repeat(100_000)}deep</p>`), status: 'failed', error: tooDeepHtml },
    { filename: 'entities.html', bytes: Buffer.from(`<p>${'&amp;'.repeat(200_000)}</p>`), status: 'ready' },
    { filename: 'utf16le.txt', bytes: Buffer.from(`\ufeff${prose}`, 'utf16le'), status: 'ready' },
    { filename: 'utf16be.md', bytes: utf16be(`\ufeff# Returns\n\n${prose}`), status: 'ready' },
    { filename: 'utf16-no-mark.txt', bytes: Buffer.from(prose, 'utf16le'), status: 'failed', error: 'The file is named as a text file, but its content is binary data, not text.' },
    { filename: 'latin1.html', bytes: Buffer.from('<p>Crème brûlée à la carte</p>', 'latin1'), status: 'failed', error: notUtf8('an HTML page') },
    { filename: 'invalid-utf8.md', bytes: Buffer.from([0x23, 0x20, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0x0a, 0xff, 0xfe, 0x41]), status: 'failed', error: notUtf8('a Markdown file') },
    { filename: `${'n'.repeat(1_000)}.md`, bytes: Buffer.from(prose), status: 'ready', name: `${'n'.repeat(197)}.md` },
    { filename: 'Préface 文档 📄 \u202etxt.md', bytes: Buffer.from(prose), status: 'ready', name: 'Préface 文档 📄 txt.md' },
    { filename: '../../../etc/passwd.txt', bytes: Buffer.from(prose), status: 'ready', name: 'passwd.txt' },
    { filename: 'empty.txt', bytes: Buffer.alloc(0), status: 'failed', error: 'The file is empty.' },
    {
      filename: 'one-line.txt',
      bytes: Buffer.alloc(8 * MB, 'word '),
      status: 'failed',
      error: 'The document is too long: its text passes 5,000,000 characters, the limit; split it into smaller files.',
    },
  ];
}
