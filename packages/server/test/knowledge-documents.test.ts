// Knowledge-base documents end to end over HTTP: real PDF, DOCX, Markdown, HTML and text files uploaded as
// multipart, parsed by the background job in its bounded worker, split along their headings into passages stored
// in the database; files that are not what they claim, encrypted and empty PDFs; the size and type limits; the
// replacement of a document by an upload of the same name (never both, never neither); deletion; isolation.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { png } from './fixtures/files/samples.ts';
import { makeDocx, makePdf, makeZip, RETURNS_POLICY_PASSAGES, returnsPolicyPdf } from './support/documents.ts';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

const ACCEPTED = 'PDF (.pdf), DOCX (.docx), Markdown (.md, .markdown), plain text (.txt, .text), HTML (.html, .htm)';
/** A parse starts a worker thread that loads its parser: seconds on a loaded machine. */
const SETTLE_MS = 60_000;

interface Doc {
  id: string;
  name: string;
  kind: string;
  status: 'processing' | 'ready' | 'failed';
  passages: number;
  error?: string;
}
type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;

let t: TestApp;
before(async () => {
  // Eight documents polled at once every 20 ms pass the console's 300 requests per 10 s of one account.
  t = await startTestApp({ rateLimitMax: 100_000 });
});
after(() => t.close());

async function newBase(user: User, name = 'Help centre'): Promise<string> {
  const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name } });
  assert.equal(base.status, 201, base.text);
  return base.body.id;
}

async function upload(user: User, baseId: string, file: { filename: string; bytes: Buffer | string; type?: string; field?: string }) {
  const form = new FormData();
  form.append(file.field ?? 'file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.filename);
  const res = await fetch(`${t.url}/console/v1/knowledge-bases/${baseId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as Doc };
}

async function list(user: User, baseId: string): Promise<Doc[]> {
  const res = await t.console<{ documents: Doc[] }>(user.token, 'GET', `/knowledge-bases/${baseId}/documents`);
  assert.equal(res.status, 200, res.text);
  return res.body.documents;
}

/** The document once its job has ended (ready or failed). */
async function settled(user: User, baseId: string, id: string): Promise<Doc> {
  return eventually(async () => (await list(user, baseId)).find((doc) => doc.id === id && doc.status !== 'processing'), SETTLE_MS);
}

async function uploadAndSettle(user: User, baseId: string, file: Parameters<typeof upload>[2]): Promise<Doc> {
  const res = await upload(user, baseId, file);
  assert.equal(res.status, 201, res.text);
  return settled(user, baseId, res.body.id);
}

async function storedPassages(documentId: string) {
  return queryRows<{ position: number; heading_path: string[]; text: string }>(
    t.database.db,
    sql`SELECT position, heading_path, text FROM knowledge_passages WHERE document_id = ${documentId} ORDER BY position`,
  );
}

/** Files in the app's file store (uploads waiting for their parse, and any left behind), local or in S3. */
async function storedFiles(): Promise<string[]> {
  const root = path.join(t.dataDir, 'files');
  const found: string[] = t.s3 ? await t.s3.objectKeys() : [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (entry.isFile()) found.push(path.join(entry.parentPath, entry.name));
  }
  return found;
}

describe('documents', { concurrency: true }, () => {
  test('a returns-policy PDF: 201 processing, then ready, split along its headings into passages stored in order', async () => {
    const user = await t.createConsoleUser();
    const baseId = await newBase(user);
    const res = await upload(user, baseId, { filename: 'returns-policy.pdf', bytes: returnsPolicyPdf(), type: 'application/pdf' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['id', 'kind', 'name', 'status']);
    assert.deepEqual({ name: res.body.name, kind: res.body.kind, status: res.body.status }, { name: 'returns-policy.pdf', kind: 'pdf', status: 'processing' });
    const doc = await settled(user, baseId, res.body.id);
    assert.deepEqual(doc, { id: res.body.id, name: 'returns-policy.pdf', kind: 'pdf', status: 'ready', passages: RETURNS_POLICY_PASSAGES.length });
    assert.deepEqual(
      (await storedPassages(doc.id)).map((p) => ({ position: p.position, headingPath: p.heading_path, text: p.text })),
      RETURNS_POLICY_PASSAGES.map((p, position) => ({ position, ...p })),
    );
  });

  test('DOCX, Markdown, HTML and plain text keep their headings as the passages\' context', async () => {
    const user = await t.createConsoleUser();
    const baseId = await newBase(user);
    const cases: { filename: string; bytes: Buffer | string; kind: string; passages: { heading_path: string[]; text: string }[] }[] = [
      {
        filename: 'Warranty.docx',
        kind: 'docx',
        bytes: makeDocx([{ heading: 1, text: 'Warranty' }, 'Every kettle has a two-year warranty.', { heading: 2, text: 'Claims' }, 'Email warranty@shop.example with your order number & a photo.']),
        passages: [
          { heading_path: ['Warranty'], text: 'Every kettle has a two-year warranty.' },
          { heading_path: ['Warranty', 'Claims'], text: 'Email warranty@shop.example with your order number & a photo.' },
        ],
      },
      {
        // Read by its XML: a heading by its style's name, a table's rows, deleted text left out, a text box once.
        filename: 'Sizes.docx',
        kind: 'docx',
        bytes: makeDocx([
          { xml: '<w:p><w:pPr><w:pStyle w:val="Titre1"/></w:pPr><w:r><w:t>Sizes</w:t></w:r></w:p>' },
          {
            xml:
              '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Size</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Chest</w:t></w:r></w:p></w:tc></w:tr>' +
              '<w:tr><w:tc><w:p><w:r><w:t>M</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>96 cm</w:t></w:r></w:p></w:tc></w:tr></w:tbl>',
          },
          { xml: '<w:p><w:r><w:t>Exchanges are</w:t></w:r><w:del><w:r><w:delText> not</w:delText></w:r></w:del><w:r><w:t xml:space="preserve"> free &amp; quick.</w:t></w:r></w:p>' },
          {
            xml:
              '<w:p><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps"><w:drawing><w:txbxContent>' +
              '<w:p><w:r><w:t>Boxed note.</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Boxed note.</w:t></w:r></w:p>' +
              '</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>',
          },
        ]),
        passages: [{ heading_path: ['Sizes'], text: 'Size | Chest\n\nM | 96 cm\n\nExchanges are free & quick.\n\nBoxed note.' }],
      },
      {
        filename: 'delivery.md',
        kind: 'markdown',
        bytes: '# Delivery\n\nWe deliver **Monday to Saturday**.\n\n## Costs\n\n- UK: free over £40\n- EU: £9.95\n\n## Tracking\n\nSee [your account](https://shop.example/account).\n',
        passages: [
          { heading_path: ['Delivery'], text: 'We deliver Monday to Saturday.' },
          { heading_path: ['Delivery', 'Costs'], text: '- UK: free over £40\n- EU: £9.95' },
          { heading_path: ['Delivery', 'Tracking'], text: 'See your account.' },
        ],
      },
      {
        filename: 'faq.html',
        kind: 'html',
        bytes: '<!doctype html><html><head><title>FAQ</title><script>var x = "<h1>no</h1>";</script></head><body><h1>Help &amp; FAQ</h1><p>Open <b>9 to 5</b>.</p><h2>Gift cards</h2><p>They never expire.</p></body></html>',
        passages: [
          { heading_path: ['Help & FAQ'], text: 'Open 9 to 5.' },
          { heading_path: ['Help & FAQ', 'Gift cards'], text: 'They never expire.' },
        ],
      },
      {
        filename: 'hours.txt',
        kind: 'text',
        bytes: 'Opening hours\n\nWe are open 9 to 5,\nMonday to Friday.\n\nClosed on bank holidays.',
        passages: [{ heading_path: ['Opening hours'], text: 'We are open 9 to 5,\nMonday to Friday.\n\nClosed on bank holidays.' }],
      },
      {
        // Saved by Windows Notepad as "Unicode": UTF-16 with its byte order mark (FF FE), which is no MPEG audio.
        filename: 'notepad.txt',
        kind: 'text',
        bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Café hours\r\n\r\nOpen 9 to 5, Monday to Friday.', 'utf16le')]),
        passages: [{ heading_path: ['Café hours'], text: 'Open 9 to 5, Monday to Friday.' }],
      },
      {
        filename: 'big-endian.md',
        kind: 'markdown',
        bytes: Buffer.from(Buffer.from('\ufeff# Returns\n\nWithin 30 days.', 'utf16le').swap16()),
        passages: [{ heading_path: ['Returns'], text: 'Within 30 days.' }],
      },
    ];
    await Promise.all(
      cases.map(async (c) => {
        const doc = await uploadAndSettle(user, baseId, { filename: c.filename, bytes: c.bytes });
        assert.deepEqual({ kind: doc.kind, status: doc.status, passages: doc.passages, error: doc.error }, { kind: c.kind, status: 'ready', passages: c.passages.length, error: undefined }, c.filename);
        assert.deepEqual((await storedPassages(doc.id)).map(({ heading_path, text }) => ({ heading_path, text })), c.passages, c.filename);
      }),
    );
    assert.equal((await list(user, baseId)).length, cases.length);
  });

  test('what is not what it claims, encrypted and empty PDFs, unreadable files: failed with a sentence, no passages', async () => {
    const user = await t.createConsoleUser();
    const baseId = await newBase(user);
    const cases: [string, Buffer | string, string][] = [
      ['photo.pdf', png(), 'The file is named as a PDF, but its content is an image (PNG).'],
      ['locked.pdf', makePdf([[{ text: 'Secret prices' }]], { userPassword: 'letmein' }), 'The PDF is encrypted (it needs a password to open); upload a copy saved without a password.'],
      ['blank.pdf', makePdf([]), 'The PDF has no text to read: it is empty, or its pages are scanned images without a text layer.'],
      ['broken.pdf', '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF', 'The PDF is damaged: its structure cannot be read.'],
      ['manual.docx', returnsPolicyPdf(), 'The file is named as a Word document (DOCX), but its content is a PDF.'],
      ['notes.docx', makeZip({ 'notes.txt': 'hello' }), 'The file is named as a Word document (DOCX), but its content is a ZIP archive.'],
      ['readme.md', png(), 'The file is named as a Markdown file, but its content is an image (PNG).'],
      ['latin1.txt', Buffer.from('Caf\xe9 au lait', 'latin1'), 'The file is named as a text file, but its content is not UTF-8 text; save it as UTF-8 and upload it again.'],
      ['empty.html', '', 'The file is empty.'],
      ['headings.md', '# Only\n\n## Headings\n', 'The document has no text to read: it is empty, or holds only headings.'],
    ];
    await Promise.all(
      cases.map(async ([filename, bytes, error]) => {
        const doc = await uploadAndSettle(user, baseId, { filename, bytes });
        assert.equal(doc.status, 'failed', filename);
        assert.equal(doc.passages, 0, filename);
        assert.equal(doc.error, error, filename);
        assert.deepEqual(await storedPassages(doc.id), [], filename);
      }),
    );
  });

  test('bad uploads: 400 for a type not accepted (with the list), no file, two files, another field; 413 over 20 MB', async () => {
    const user = await t.createConsoleUser();
    const baseId = await newBase(user);
    for (const filename of ['setup.exe', 'photo.png', 'sheet.xlsx', 'old.doc']) {
      const res = await upload(user, baseId, { filename, bytes: png() });
      assert.equal(res.status, 400, filename);
      assert.deepEqual(JSON.parse(res.text), { message: `File type not accepted: ${filename}. Accepted: ${ACCEPTED}`, statusCode: 400 });
    }
    // No extension: the part's content type names the kind.
    const named = await upload(user, baseId, { filename: 'policy', bytes: '# Policy\n\nText.', type: 'text/markdown' });
    assert.equal(named.status, 201, named.text);
    assert.deepEqual({ name: named.body.name, kind: named.body.kind }, { name: 'policy.md', kind: 'markdown' });
    assert.equal((await settled(user, baseId, named.body.id)).status, 'ready');
    const unnamed = await upload(user, baseId, { filename: 'policy', bytes: 'x', type: 'application/octet-stream' });
    assert.equal(unnamed.status, 400);

    const other = await upload(user, baseId, { filename: 'a.md', bytes: '# A', field: 'files' });
    assert.deepEqual([other.status, JSON.parse(other.text)], [400, { message: 'property files should not exist', statusCode: 400 }]);
    const two = new FormData();
    two.append('file', new Blob(['# A\n\na']), 'a.md');
    two.append('file', new Blob(['# B\n\nb']), 'b.md');
    const twoRes = await fetch(`${t.url}/console/v1/knowledge-bases/${baseId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: two });
    assert.deepEqual([twoRes.status, await twoRes.json()], [400, { message: 'One file per upload, in the field "file"', statusCode: 400 }]);
    const none = await t.console(user.token, 'POST', `/knowledge-bases/${baseId}/documents`, { body: {} });
    assert.deepEqual([none.status, none.body], [400, { message: 'file: send one file in the multipart/form-data field "file"', statusCode: 400 }]);

    const big = await upload(user, baseId, { filename: 'huge.txt', bytes: Buffer.alloc(20 * 1024 * 1024 + 1, 'a') });
    assert.deepEqual([big.status, JSON.parse(big.text)], [413, { message: 'File too large: at most 20 MB', statusCode: 413 }]);
    const ru = new FormData();
    ru.append('file', new Blob(['x']), 'virus.exe');
    const ruRes = await fetch(`${t.url}/console/v1/knowledge-bases/${baseId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${user.token}`, userlang: 'ru' }, body: ru });
    assert.deepEqual(await ruRes.json(), { message: `Тип файла не принимается: virus.exe. Принимаются: ${ACCEPTED}`, statusCode: 400 });

    // Exactly 20 MB is accepted.
    const limit = await upload(user, baseId, { filename: 'limit.txt', bytes: Buffer.alloc(20 * 1024 * 1024, 'a') });
    assert.equal(limit.status, 201, limit.text);
    assert.deepEqual(
      (await list(user, baseId)).map((doc) => doc.name).sort(),
      ['limit.txt', 'policy.md'],
      'refused uploads left no document',
    );
    await settled(user, baseId, limit.body.id);
  });

  test('another account\'s base or document is 404 on every route; without a login 401', async () => {
    const owner = await t.createConsoleUser();
    const stranger = await t.createConsoleUser();
    const baseId = await newBase(owner);
    const doc = await uploadAndSettle(owner, baseId, { filename: 'faq.md', bytes: '# FAQ\n\nYes.' });
    const strangersBase = await newBase(stranger);
    const notFoundBase = { message: 'Knowledge base not found', statusCode: 404 };

    const up = await upload(stranger, baseId, { filename: 'x.md', bytes: '# X\n\nx' });
    assert.deepEqual([up.status, JSON.parse(up.text)], [404, notFoundBase]);
    const listed = await t.console(stranger.token, 'GET', `/knowledge-bases/${baseId}/documents`);
    assert.deepEqual([listed.status, listed.body], [404, notFoundBase]);
    const deleted = await t.console(stranger.token, 'DELETE', `/knowledge-bases/${baseId}/documents/${doc.id}`);
    assert.deepEqual([deleted.status, deleted.body], [404, notFoundBase]);
    // The owner's document under the stranger's own base: no such document.
    const crossed = await t.console(stranger.token, 'DELETE', `/knowledge-bases/${strangersBase}/documents/${doc.id}`);
    assert.deepEqual([crossed.status, crossed.body], [404, { message: 'Document not found', statusCode: 404 }]);
    assert.deepEqual(await list(stranger, strangersBase), []);
    assert.equal((await list(owner, baseId))[0]?.status, 'ready', 'the owner still has it');

    const anonymous = await fetch(`${t.url}/console/v1/knowledge-bases/${baseId}/documents`, { method: 'POST', body: new FormData() });
    assert.equal(anonymous.status, 401);
  });

  test('delete: 200, the document and its passages are gone, a second delete is 404', async () => {
    const user = await t.createConsoleUser();
    const baseId = await newBase(user);
    const doc = await uploadAndSettle(user, baseId, { filename: 'returns-policy.pdf', bytes: returnsPolicyPdf() });
    assert.equal((await storedPassages(doc.id)).length, RETURNS_POLICY_PASSAGES.length);
    const res = await t.console(user.token, 'DELETE', `/knowledge-bases/${baseId}/documents/${doc.id}`);
    assert.deepEqual([res.status, res.body], [200, { success: true }]);
    assert.deepEqual(await list(user, baseId), []);
    assert.deepEqual(await storedPassages(doc.id), []);
    const again = await t.console(user.token, 'DELETE', `/knowledge-bases/${baseId}/documents/${doc.id}`);
    assert.deepEqual([again.status, again.body], [404, { message: 'Document not found', statusCode: 404 }]);
    // Deleting the base deletes its documents and passages.
    const kept = await uploadAndSettle(user, baseId, { filename: 'faq.md', bytes: '# FAQ\n\nYes.' });
    assert.equal((await t.console(user.token, 'DELETE', `/knowledge-bases/${baseId}`)).status, 200);
    assert.deepEqual(await storedPassages(kept.id), []);
  });

  test('an upload of the same name replaces the document: its passages swap in one step, never both or neither', async () => {
    const user = await t.createConsoleUser();
    const baseId = await newBase(user);
    const v1 = await uploadAndSettle(user, baseId, { filename: 'policy.md', bytes: '# Returns\n\nWithin 14 days.\n\n# Refunds\n\nIn 10 days.' });
    const v1Texts = ['Within 14 days.', 'In 10 days.'];
    const v2Texts = ['Within 30 days.', 'In 5 days.', 'Free of charge.'];
    // The passages of the ready documents named policy.md, watched while v2 is parsed and swapped in.
    const readyTexts = async () =>
      (
        await queryRows<{ text: string }>(
          t.database.db,
          sql`SELECT p.text FROM knowledge_passages p JOIN knowledge_documents d ON d.id = p.document_id
              WHERE d.knowledge_base_id = ${baseId} AND d.name = 'policy.md' AND d.status = 'ready' ORDER BY d.id, p.position`,
        )
      ).map((row) => row.text);
    const seen: string[][] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        seen.push(await readyTexts());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const v2 = await upload(user, baseId, { filename: 'policy.md', bytes: '# Returns\n\nWithin 30 days.\n\n# Refunds\n\nIn 5 days.\n\n# Exchanges\n\nFree of charge.' });
    assert.equal(v2.status, 201, v2.text);
    assert.equal((await settled(user, baseId, v2.body.id)).status, 'ready');
    watching = false;
    await watcher;
    seen.push(await readyTexts());
    assert.ok(seen.length > 2, 'watched during the swap');
    for (const texts of seen) assert.ok([JSON.stringify(v1Texts), JSON.stringify(v2Texts)].includes(JSON.stringify(texts)), `seen ${JSON.stringify(texts)}`);
    assert.deepEqual(seen.at(-1), v2Texts);
    assert.deepEqual(await list(user, baseId), [{ id: v2.body.id, name: 'policy.md', kind: 'markdown', status: 'ready', passages: 3 }]);
    assert.deepEqual(await storedPassages(v1.id), []);

    // A re-upload that fails leaves the working version in place, listed beside the failed one.
    const broken = await uploadAndSettle(user, baseId, { filename: 'policy.md', bytes: png() });
    assert.equal(broken.status, 'failed');
    assert.deepEqual((await list(user, baseId)).map((doc) => [doc.id, doc.status]), [[broken.id, 'failed'], [v2.body.id, 'ready']]);
    assert.deepEqual(await readyTexts(), v2Texts);
    // The next good upload replaces both.
    const v3 = await uploadAndSettle(user, baseId, { filename: 'policy.md', bytes: '# Returns\n\nWithin 60 days.' });
    assert.deepEqual((await list(user, baseId)).map((doc) => [doc.id, doc.status]), [[v3.id, 'ready']]);
  });
});

test('no upload is left in the file store once its document is parsed, failed, replaced or deleted, nor any refused one', async () => {
  assert.deepEqual(await storedFiles(), []);
});
