import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as samples from '../../test/fixtures/files/samples.ts';
import { detectFile, isPlainText, safeFileName, type DetectedFile } from './file-kinds.ts';

const accepted: Array<[string, Buffer, DetectedFile]> = [
  ['photo.png', samples.png(), { kind: 'image', contentType: 'image/png', extension: 'png' }],
  ['photo.jpg', samples.jpeg(), { kind: 'image', contentType: 'image/jpeg', extension: 'jpg' }],
  ['anim.gif', samples.gif(), { kind: 'image', contentType: 'image/gif', extension: 'gif' }],
  ['pic.webp', samples.webp(), { kind: 'image', contentType: 'image/webp', extension: 'webp' }],
  ['voice.mp3', samples.mp3WithId3(), { kind: 'audio', contentType: 'audio/mpeg', extension: 'mp3' }],
  ['raw.mp3', samples.mp3WithoutId3(), { kind: 'audio', contentType: 'audio/mpeg', extension: 'mp3' }],
  ['voice.wav', samples.wav(), { kind: 'audio', contentType: 'audio/wav', extension: 'wav' }],
  ['invoice.pdf', samples.pdf(), { kind: 'other', contentType: 'application/pdf', extension: 'pdf' }],
  ['letter.doc', samples.doc(), { kind: 'other', contentType: 'application/msword', extension: 'doc' }],
  [
    'letter.docx',
    samples.docx(),
    { kind: 'other', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' },
  ],
  ['sheet.xls', samples.xls(), { kind: 'other', contentType: 'application/vnd.ms-excel', extension: 'xls' }],
  ['old.xls', samples.cfb('Book'), { kind: 'other', contentType: 'application/vnd.ms-excel', extension: 'xls' }],
  [
    'sheet.xlsx',
    samples.xlsx(),
    { kind: 'other', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' },
  ],
  ['clip.mp4', samples.mp4(), { kind: 'other', contentType: 'video/mp4', extension: 'mp4' }],
  ['clip.avi', samples.avi(), { kind: 'other', contentType: 'video/x-msvideo', extension: 'avi' }],
  ['notes.txt', samples.cyrillicText(), { kind: 'other', contentType: 'text/plain', extension: 'txt' }],
];

for (const [name, bytes, expected] of accepted) {
  test(`accepts ${name} as ${expected.contentType}`, async () => {
    assert.deepEqual(await detectFile(bytes, name), expected);
  });
}

test('the bytes decide, not the name', async () => {
  assert.equal((await detectFile(samples.pdf(), 'photo.png'))?.contentType, 'application/pdf');
  assert.equal((await detectFile(samples.png(), 'document.pdf'))?.contentType, 'image/png');
  assert.equal((await detectFile(samples.mp3WithoutId3(), 'noname'))?.kind, 'audio');
  assert.equal((await detectFile(samples.cyrillicText(), 'photo.jpg'))?.contentType, 'text/plain');
});

test('MP3 without an ID3 tag: MPEG-1, MPEG-2 and MPEG-2.5 frame syncs', async () => {
  for (const [second, third] of [
    [0xfb, 0x90], // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz
    [0xfa, 0x92], // the same with a CRC, padded
    [0xf3, 0x64], // MPEG-2 Layer III, 48 kbit/s, 24 kHz
    [0xe3, 0x44], // MPEG-2.5 Layer III, 32 kbit/s, 12 kHz
  ] as const) {
    const bytes = samples.mp3WithoutId3();
    for (let at = 0; at < bytes.length; at += 417) [bytes[at + 1], bytes[at + 2]] = [second, third];
    assert.equal((await detectFile(bytes, 'x.mp3'))?.contentType, 'audio/mpeg', second.toString(16));
  }
});

const rejected: Array<[string, string, Buffer]> = [
  ['an ELF executable named photo.png (declared image/png)', 'photo.png', samples.elf()],
  ['a PE executable renamed .txt', 'readme.txt', samples.pe()],
  ['an ELF executable renamed .txt', 'notes.txt', samples.elf()],
  ['a plain ZIP', 'archive.zip', samples.plainZip()],
  ['a ZIP named .docx', 'letter.docx', samples.plainZip()],
  ['a macro-enabled Word document (DOCM)', 'letter.docx', samples.docx('application/vnd.ms-word.document.macroEnabled.main+xml')],
  ['an HTML page', 'page.txt', samples.html()],
  ['an HTML page after blank lines and a BOM', 'page.txt', Buffer.concat([Buffer.from('\ufeff\n  \n'), samples.html()])],
  ['an SVG', 'image.png', samples.svg()],
  ['an SVG with an XML declaration', 'image.svg', samples.svgWithXmlDeclaration()],
  ['random bytes', 'data.bin', samples.randomBytes()],
  ['a compound file that is neither Word nor Excel (PowerPoint)', 'slides.doc', samples.cfb('PowerPoint Document')],
  ['a compound file naming WordDocument only as data, off the directory grid', 'x.doc', cfbWithNameInData()],
  ['an M4A (audio the spec does not list)', 'voice.mp3', samples.mp4('M4A')],
  ['a QuickTime movie', 'clip.mp4', samples.mp4('qt')],
  ['AAC in ADTS', 'voice.mp3', Buffer.concat([Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc]), Buffer.alloc(64)])],
  ['an MPEG frame sync with a forbidden bitrate', 'x.mp3', Buffer.concat([Buffer.from([0xff, 0xfb, 0xf0, 0x64]), Buffer.alloc(64)])],
  ['an MPEG frame sync with a reserved sample rate', 'x.mp3', Buffer.concat([Buffer.from([0xff, 0xfb, 0x9c, 0x64]), Buffer.alloc(64)])],
  ['an ID3 tag followed by junk', 'x.mp3', Buffer.concat([samples.mp3WithId3().subarray(0, 29), Buffer.alloc(64)])],
  ['text with a NUL byte', 'a.txt', Buffer.from('hello\0world')],
  ['text with an escape character', 'a.txt', Buffer.from('hello \x1b[31mred')],
  ['text with a C1 control character', 'a.txt', Buffer.from('hello \u0085 world')],
  ['Latin-1 text (not UTF-8)', 'a.txt', Buffer.from('caf\xe9 cr\xe8me', 'latin1')],
  ['an empty file', 'a.txt', Buffer.alloc(0)],
  ['a single byte', 'a.txt', Buffer.from([0xff])],
  ['a GZIP archive', 'a.txt', Buffer.from('1f8b0800000000000003030000000000000000', 'hex')],
];

for (const [what, name, bytes] of rejected) {
  test(`rejects ${what}`, async () => {
    assert.equal(await detectFile(bytes, name), undefined);
  });
}

/** A compound file whose directory holds a stream "Data", and "WordDocument" in UTF-16 at an odd offset. */
function cfbWithNameInData(): Buffer {
  const bytes = Buffer.concat([samples.cfb('Data'), Buffer.alloc(512)]);
  Buffer.from('WordDocument\0', 'utf16le').copy(bytes, 1536 + 10);
  return bytes;
}

test('plain text: tab, CR, LF and FF are the only control characters allowed', () => {
  assert.equal(isPlainText(Buffer.from('a\tb\r\nc\fd\n')), true);
  assert.equal(isPlainText(Buffer.from('\ufeffWith a byte order mark')), true);
  assert.equal(isPlainText(Buffer.from('a < b and c > d')), true);
  assert.equal(isPlainText(Buffer.from('emoji 🎉 and 日本語')), true);
  for (const control of [0x00, 0x01, 0x07, 0x08, 0x0b, 0x0e, 0x1b, 0x1f, 0x7f]) {
    assert.equal(isPlainText(Buffer.from([0x61, control, 0x62])), false, control.toString(16));
  }
});

test('safeFileName keeps the sender\'s name when its extension fits the bytes', () => {
  assert.equal(safeFileName('Отчёт за май.pdf', 'pdf'), 'Отчёт за май.pdf');
  assert.equal(safeFileName('IMG_0001.JPEG', 'jpg'), 'IMG_0001.JPEG');
  assert.equal(safeFileName('voice.wave', 'wav'), 'voice.wave');
});

test('safeFileName appends the real extension when the sender\'s one lies', () => {
  assert.equal(safeFileName('photo.png', 'pdf'), 'photo.png.pdf');
  assert.equal(safeFileName('invoice.exe', 'pdf'), 'invoice.exe.pdf');
  assert.equal(safeFileName('page.html', 'txt'), 'page.html.txt');
  assert.equal(safeFileName('README', 'txt'), 'README.txt');
});

test('safeFileName drops paths, control and bidirectional characters, and caps the length', () => {
  assert.equal(safeFileName('../../etc/passwd', 'txt'), 'passwd.txt');
  assert.equal(safeFileName('C:\\Users\\me\\scan.pdf', 'pdf'), 'scan.pdf');
  assert.equal(safeFileName('a\r\nb\0c.pdf', 'pdf'), 'abc.pdf');
  assert.equal(safeFileName('invoice\u202egpj.exe', 'pdf'), 'invoicegpj.exe.pdf');
  assert.equal(safeFileName('', 'png'), 'file.png');
  assert.equal(safeFileName('...', 'png'), 'file.png');
  assert.equal(safeFileName('  .hidden.txt.  ', 'txt'), 'hidden.txt');
  const long = safeFileName(`${'я'.repeat(300)}.docx`, 'docx');
  assert.equal([...long].length, 200);
  assert.ok(long.endsWith('я.docx'));
});
