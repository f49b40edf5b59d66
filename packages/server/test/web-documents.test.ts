// Knowledge-base documents in the web account, in a real browser: a returns-policy PDF picked with the file input
// and a Markdown file dropped on the panel become ready with their passages; a PNG named .pdf shows why it failed;
// delete; `Try the agent` lists the passages the model was given. A document's name and text are shown as text,
// never run as HTML. The base's `Used by` card says what each channel's engine does with the documents.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { png } from './fixtures/files/samples.ts';
import { browserTests, launchBrowser, signIn as signInAt, withScreenshotOnFailure, type TestBrowser } from './support/browser.ts';
import { returnsPolicyPdf } from './support/documents.ts';
import { reply, startFakeLlm, type FakeLlm } from './support/fake-llm.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const WAIT = 20_000;
/** A document is parsed by a worker that loads its parsers first: seconds on a loaded machine. */
const SETTLE = 60_000;
const HOSTILE = '<img src=x onerror=window.__pwned=1>';

let t: TestApp;
let browser: TestBrowser;
let llm: FakeLlm;

/** Drops files on an element as a browser does when they are dragged from the desktop. */
async function dropFiles(page: Page, selector: string, files: { name: string; type: string; text: string }[]): Promise<void> {
  const transfer = await page.evaluateHandle(`(() => {
    const data = new DataTransfer();
    for (const file of ${JSON.stringify(files)}) data.items.add(new File([file.text], file.name, { type: file.type }));
    return data;
  })()`);
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}

describe('knowledge-base documents in the web account', browserTests, () => {
  before(async () => {
    browser = await launchBrowser();
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    llm = await startFakeLlm();
  });
  after(async () => {
    await browser?.close();
    await llm?.close();
    await t?.close();
  });

  test('upload by picker and by drop, status and passages, a failure\'s reason, delete; Try the agent shows the passages', async (ctx) => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Policies' } });
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Shop', knowledgeBaseId: base.body.id, agentEngine: { kind: 'openai-compatible', baseUrl: `${llm.url}/v1`, model: 'test-model', timeoutSeconds: 10 } },
    });
    assert.equal(channel.status, 201, channel.text);
    llm.script('/v1/chat/completions', reply.text('Earrings are final sale.'));
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signInAt(page, `${t.url}/knowledge-bases/${base.body.id}`, user.email, PASSWORD);
      const panel = page.getByRole('region', { name: 'Documents', exact: true });
      await panel.waitFor({ timeout: WAIT });
      const rows = panel.getByRole('table', { name: 'Document list', exact: true }).getByRole('row');

      // The file picker: the PDF, then a PNG pretending to be one.
      await panel.getByLabel('Upload document', { exact: true }).setInputFiles([
        { name: 'returns-policy.pdf', mimeType: 'application/pdf', buffer: returnsPolicyPdf() },
        { name: 'scan.pdf', mimeType: 'application/pdf', buffer: png() },
      ]);
      const policy = rows.filter({ hasText: 'returns-policy.pdf' });
      await policy.filter({ hasText: 'Ready' }).filter({ hasText: '5 passages' }).waitFor({ timeout: SETTLE });
      await rows.filter({ hasText: 'scan.pdf' }).filter({ hasText: 'Failed' }).filter({ hasText: 'The file is named as a PDF, but its content is an image (PNG).' }).waitFor({ timeout: SETTLE });

      // Dropped on the panel: a Markdown file whose name and text hold markup.
      await dropFiles(page, 'section[aria-label="Documents"]', [
        { name: `${HOSTILE}.md`, type: 'text/markdown', text: `# Jewellery\n\nEarrings: final sale.\n\n\`\`\`\n${HOSTILE}\n\`\`\`\n` },
      ]);
      const hostile = rows.filter({ hasText: `${HOSTILE}.md` });
      await hostile.filter({ hasText: 'Ready' }).filter({ hasText: /1 passage(?!s)/ }).waitFor({ timeout: SETTLE });

      // Delete the failed one.
      await panel.getByRole('button', { name: 'Delete document scan.pdf', exact: true }).click();
      await panel.getByText('scan.pdf').first().waitFor({ state: 'detached', timeout: WAIT });
      assert.equal(await rows.count(), 2);

      // Try the agent: the reply and the passages it was given, as text.
      await page.goto(`${t.url}/channels/custom/${encodeURIComponent(channel.body.id)}`);
      await page.getByRole('textbox', { name: 'Message to the agent', exact: true }).fill('Can I return earrings?');
      await page.getByRole('button', { name: 'Ask', exact: true }).click();
      await page.getByLabel('Agent reply').filter({ hasText: 'Earrings are final sale.' }).waitFor({ timeout: WAIT });
      const given = page.getByRole('list', { name: 'Passages given to the agent', exact: true });
      await given.getByText('returns-policy.pdf › Returns Policy › Final sale').waitFor({ timeout: WAIT });
      await given.getByText('Underwear, earrings and gift cards are final sale and cannot be returned.').waitFor({ timeout: WAIT });
      await given.getByText(`${HOSTILE}.md › Jewellery`).waitFor({ timeout: WAIT });
      // The passage's markup is its text, shown as written.
      const texts = await given.locator('p.text').allTextContents();
      assert.ok(texts.includes(`Earrings: final sale.\n\n${HOSTILE}`), JSON.stringify(texts));
      assert.equal(await page.evaluate('window.__pwned'), undefined, 'no markup of a document ran');
      assert.equal(await page.locator('img').count(), 0, 'no markup of a document became an element');
    });
  });

  test('Used by says what each channel\'s engine does with the documents', async (ctx) => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Policies' } });
    const connect = async (name: string, agentEngine: Record<string, unknown>, clarifyChoices?: number) => {
      const res = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name, knowledgeBaseId: base.body.id, agentEngine } });
      assert.equal(res.status, 201, res.text);
      if (clarifyChoices !== undefined) {
        const put = await t.console(user.token, 'PUT', `/channel/custom/${encodeURIComponent(res.body.id)}/`, { body: { clarifyChoices } });
        assert.equal(put.status, 200, put.text);
      }
    };
    await connect('Built-in', { kind: 'knowledge-base' });
    await connect('No choices', { kind: 'knowledge-base' }, 0);
    await connect('Model', { kind: 'openai-compatible', baseUrl: `${llm.url}/v1`, model: 'test-model', timeoutSeconds: 10 });
    const { page } = await browser.newPage();
    await withScreenshotOnFailure(ctx, page, async () => {
      await signInAt(page, `${t.url}/knowledge-bases/${base.body.id}`, user.email, PASSWORD);
      const card = page.getByRole('region', { name: 'Used by', exact: true });
      const line = (name: string) => card.getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });
      await line('Built-in').waitFor({ timeout: WAIT });
      assert.equal(
        await line('Built-in').textContent(),
        'Built-in (API) — Built-in engine: sends an entry’s answer word for word when a question matches it. When it is not sure, it offers the entries and ' +
          'document passages that fit the question best as choices; when the customer picks a passage, it sends that passage’s text (up to 700 ' +
          'characters) and names the document. A document never answers a question by itself.',
      );
      assert.equal(
        await line('No choices').textContent(),
        'No choices (API) — Built-in engine: sends an entry’s answer word for word when a question matches it. This channel offers no choices, so the documents are not used.',
      );
      assert.equal(await line('Model').textContent(), 'Model (API) — Model: reads the best matching entries and document passages and writes its answer from them.');
    });
  });
});
