import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../core/testing.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.join(os.tmpdir(), 'tessera-console-screenshots');
const TOKEN_KEY = 'tessera.console.token';

/**
 * The web console (plugins/console) driven in headless Chromium against a real listening kernel: one story, step by
 * step, each step leaving a screenshot. Skipped where no Chromium is installed.
 */
describe('console: the web console in a browser', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let base: string;
  let browser: Browser;
  let page: Page;

  const shot = (p: Page, step: string) => p.screenshot({ path: path.join(SHOTS, `${step}.png`), fullPage: true });
  const api = (method: 'get' | 'post', url: string, token: string) => t.request[method](url).set({ Authorization: `Bearer ${token}` });

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) this.skip();
    fs.mkdirSync(SHOTS, { recursive: true });
    console.log(`      screenshots: ${SHOTS}`);
    t = await startTestKernel();
    const server = await t.kernel.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // A script error or a CSP refusal is a failure, not a silent blank page.
    page.on('pageerror', (err) => console.error('page error:', err));
    page.on('console', (msg) => msg.type() === 'error' && console.error('console error:', msg.text()));
  });

  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('keeps JSON at / for API clients, and serves only the console files it knows', async () => {
    const json = await fetch(`${base}/`, { headers: { Accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.match(json.headers.get('vary') ?? '', /Accept\b/);
    assert.deepEqual(await json.json(), { name: 'Tessera', api: '/api/v1', docs: '/api/v1/docs', openapi: '/api/v1/openapi.json' });
    // Saying nothing (curl's */*) is JSON too.
    assert.equal((await (await fetch(`${base}/`)).json()).name, 'Tessera');

    const page = await fetch(`${base}/`, { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self'; style-src 'self'/);
    assert.match(await page.text(), /<script type="module" src="\/console\/assets\/app\.js">/);

    const lib = await fetch(`${base}/console/assets/preact-htm.js`);
    assert.equal(lib.status, 200);
    assert.match(lib.headers.get('content-type')!, /^text\/javascript/);
    assert.equal(lib.headers.get('cache-control'), 'no-cache');
    assert.match(await lib.text(), /export\{/);

    for (const name of ['nope.js', '..%2Findex.ts', '..%2F..%2Fpackage.json', 'README.md', '']) {
      const res = await fetch(`${base}/console/assets/${name}`);
      assert.equal(res.status, 404, name);
      await res.body?.cancel();
    }
    // A dot segment is resolved before it is asked for: what it reaches is a /console/ path, the page, never a file.
    assert.match(await (await fetch(`${base}/console/assets/../index.ts`)).text(), /<div id="app">/);
    // Deep links are the page; the API keeps its own policy.
    assert.match(await (await fetch(`${base}/console/anything`)).text(), /<div id="app">/);
    const apiRes = await fetch(`${base}/api/v1/health`);
    assert.doesNotMatch(apiRes.headers.get('content-security-policy') ?? '', /script-src/);
    await apiRes.body?.cancel();
  });

  it('signs up, builds a database, edits, filters, comments with a mention, updates live, takes a public form', async () => {
    // 1. Sign up through the UI.
    await page.goto(`${base}/`);
    await page.getByRole('button', { name: 'No account yet? Sign up' }).click();
    await page.getByLabel('E-mail').fill('ada@example.test');
    await page.getByLabel('Name').fill('Ada');
    await page.getByLabel('Password').fill('correct horse battery');
    await shot(page, '01-sign-up');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await page.getByTestId('me').filter({ hasText: 'Ada' }).waitFor();
    assert.equal(await page.getByText('Loading the console').count(), 0);
    assert.equal(await page.getByRole('link', { name: 'API reference' }).getAttribute('href'), '/api/v1/docs');
    const token = (await page.evaluate((key) => localStorage.getItem(key), TOKEN_KEY))!;
    const me = (await api('get', '/api/v1/me', token).expect(200)).body;
    const ada: SignedUpUser = { id: me.id, email: me.email, name: me.name, token, auth: { Authorization: `Bearer ${token}` } };

    // 2. A workspace, a space, a database.
    await page.getByLabel('New workspace').fill('Acme');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.waitForURL(/#\/w\/[0-9a-f-]+$/);
    const ws = /#\/w\/([0-9a-f-]+)$/.exec(page.url())![1];
    await page.getByLabel('New space').fill('Sales');
    await page.getByRole('button', { name: 'Create space' }).click();
    await page.getByLabel('New database in Sales').fill('Deals');
    await shot(page, '02-workspace');
    await page.getByRole('button', { name: 'Create database' }).click();
    await page.waitForURL(/#\/w\/[0-9a-f-]+\/d\/[0-9a-f-]+$/);
    const db = /\/d\/([0-9a-f-]+)$/.exec(page.url())![1];
    const R = `/api/v1/workspaces/${ws}/databases/${db}/records`;

    // A second member, for the mention and the live view.
    const mia = await signUp(t, { name: 'Mia', email: 'mia@example.test' });
    await joinWorkspace(t, ada, ws, mia, 'member');

    // 3. Fields: a number and a single select.
    await page.getByText('Fields (', { exact: false }).click();
    const addField = page.getByTestId('add-field');
    await addField.getByLabel('Field name').fill('Score');
    await addField.getByLabel('Type').selectOption('number');
    await addField.getByRole('button', { name: 'Add field' }).click();
    await page.getByTestId('fields').getByText('score', { exact: true }).waitFor();
    await addField.getByLabel('Field name').fill('Stage');
    await addField.getByLabel('Type').selectOption('single_select');
    await addField.getByLabel('Choices (comma separated)').fill('Open, Closed');
    await addField.getByRole('button', { name: 'Add field' }).click();
    await page.getByTestId('fields').getByText('stage', { exact: true }).waitFor();
    await page.getByRole('columnheader', { name: 'Stage' }).waitFor();
    await shot(page, '03-fields');

    // 4. Two records, added in the grid.
    const rows = page.getByTestId('row');
    for (const title of ['Alpha', 'Beta']) {
      await page.getByLabel('New record').fill(title);
      await page.getByRole('button', { name: 'Add record' }).click();
      await rows.filter({ hasText: title }).waitFor();
    }
    assert.equal(await rows.count(), 2);
    // By id: while a cell is edited its text is in an input, which a text filter would not see.
    const byTitle = async (title: string) => page.locator(`[data-record-id="${await rows.filter({ hasText: title }).getAttribute('data-record-id')}"]`);
    const alpha = await byTitle('Alpha');
    const beta = await byTitle('Beta');

    // 5. Inline edits: Enter saves a number, a select saves on change, Escape cancels.
    await alpha.getByTestId('cell-score').click();
    await alpha.getByTestId('cell-editor').fill('5');
    await alpha.getByTestId('cell-editor').press('Enter');
    await alpha.getByTestId('cell-score').filter({ hasText: '5' }).waitFor();
    await beta.getByTestId('cell-score').click();
    await beta.getByTestId('cell-editor').fill('1');
    await beta.getByTestId('cell-editor').press('Enter');
    await beta.getByTestId('cell-score').filter({ hasText: '1' }).waitFor();
    await alpha.getByTestId('cell-stage').click();
    await alpha.getByTestId('cell-editor').selectOption({ label: 'Open' });
    await alpha.getByTestId('cell-stage').filter({ hasText: 'Open' }).waitFor();
    await beta.getByTestId('cell-name').click();
    await beta.getByTestId('cell-editor').fill('Not saved');
    await beta.getByTestId('cell-editor').press('Escape');
    await beta.getByTestId('cell-name').filter({ hasText: 'Beta' }).waitFor();
    await shot(page, '04-edited');
    const stored = (await api('post', `${R}/query`, token).send({ sorts: [{ field: 'name', direction: 'asc' }] }).expect(200)).body.data;
    assert.deepEqual(
      stored.map((r: { values: { name: string; score: number; stage: { label: string } | null } }) => [r.values.name, r.values.score, r.values.stage?.label ?? null]),
      [['Alpha', 5, 'Open'], ['Beta', 1, null]],
    );
    const alphaId = stored[0].id as string;
    const betaId = stored[1].id as string;

    // 6. A filter: score > 3 leaves Alpha only; Clear brings Beta back.
    await page.getByText('Filter and sort').click();
    await page.getByTestId('add-condition').click();
    const cond = page.getByTestId('filter-condition');
    await cond.getByTestId('filter-field').selectOption({ label: 'Score' });
    await cond.getByTestId('filter-op').selectOption('gt');
    await cond.getByTestId('filter-value').fill('3');
    await page.getByTestId('apply-query').click();
    await beta.waitFor({ state: 'detached' });
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.first().getAttribute('data-record-id'), alphaId);
    await shot(page, '05-filtered');
    await page.getByRole('button', { name: 'Clear' }).click();
    await beta.waitFor();

    // 7. The record panel, and a comment mentioning Mia picked from the suggestions.
    await alpha.getByTestId('open-record').click();
    const panel = page.getByTestId('record-panel');
    await panel.getByTestId('value-score').filter({ hasText: '5' }).waitFor();
    const input = panel.getByTestId('comment-input');
    await input.click();
    await input.pressSequentially('Could you check this, @Mi');
    await panel.getByTestId('mention-suggestions').getByText('Mia').waitFor();
    await input.press('Enter');
    await input.pressSequentially('please?');
    await panel.getByRole('button', { name: 'Post comment' }).click();
    await panel.getByTestId('comment').locator('.mention', { hasText: '@Mia' }).waitFor();
    await shot(page, '06-comment');
    const [comment] = (await api('get', `${R}/${alphaId}/comments`, token).expect(200)).body.data;
    assert.deepEqual(comment.mentions, [mia.id]);
    assert.equal(comment.text, 'Could you check this, @Mia please?');

    // 8. Mia, in a browser of her own, sees Ada's edits and comments without reloading.
    const miaContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await miaContext.addInitScript(([key, value]) => localStorage.setItem(key, value), [TOKEN_KEY, mia.token] as const);
    const miaPage = await miaContext.newPage();
    await miaPage.goto(`${base}/#/w/${ws}/d/${db}`);
    await miaPage.getByTestId('live-status').filter({ hasText: /^live$/ }).waitFor();
    await miaPage.getByTestId('row').nth(1).waitFor();
    await miaPage.getByTestId('row').filter({ hasText: 'Alpha' }).getByTestId('open-record').click();
    await miaPage.getByTestId('record-panel').getByTestId('comment').first().waitFor();

    await beta.getByTestId('cell-score').click();
    await beta.getByTestId('cell-editor').fill('42');
    await beta.getByTestId('cell-editor').press('Enter');
    const miaBeta = miaPage.locator(`[data-record-id="${betaId}"]`);
    await miaBeta.getByTestId('cell-score').filter({ hasText: '42' }).waitFor({ timeout: 15_000 });
    await panel.getByTestId('comment-input').fill('Second thoughts');
    await panel.getByRole('button', { name: 'Post comment' }).click();
    await miaPage.getByTestId('record-panel').getByTestId('comment').nth(1).waitFor({ timeout: 15_000 });
    await shot(miaPage, '07-live-second-member');

    // 9. A form, published, filled in anonymously; the new record shows up in Ada's grid live.
    await page.getByText('Forms (').click();
    await page.getByTestId('create-form').click();
    const link = (await page.getByTestId('form-link').getAttribute('href'))!;
    assert.match(link, /\/#\/form\/[A-Za-z0-9_-]+$/);
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const form = await visitor.newPage();
    await form.goto(link);
    await form.getByLabel('Name').fill('Gamma');
    await form.getByLabel('Score').fill('7');
    await form.getByLabel('Stage').selectOption({ label: 'Closed' });
    await shot(form, '08-public-form');
    await form.getByRole('button', { name: 'Submit' }).click();
    await form.getByTestId('form-sent').waitFor();
    await rows.filter({ hasText: 'Gamma' }).waitFor({ timeout: 15_000 });
    await shot(page, '09-form-record-live');
    const gamma = (await api('post', `${R}/query`, token).send({ filter: { and: [{ field: 'name', op: 'eq', value: 'Gamma' }] } }).expect(200)).body.data;
    assert.deepEqual([gamma.length, gamma[0].values.score, gamma[0].values.stage.label, gamma[0].created_by], [1, 7, 'Closed', null]);

    // 10. The instance admin (the first account) sees the plugins.
    await page.getByRole('link', { name: 'Plugins' }).click();
    await page.getByTestId('plugins').getByRole('cell', { name: 'console', exact: true }).waitFor();
    await shot(page, '10-admin-plugins');

    // 11. An attachment field: a PNG uploaded into Alpha's cell shows as a thumbnail (a blob: URL, fetched with the
    // token); a multi select edited in place; a rating the API refuses shows its problem next to the cell.
    await page.goto(`${base}/#/w/${ws}/d/${db}`);
    await page.getByText('Fields (', { exact: false }).click();
    for (const [name, type, choices] of [['Files', 'attachment'], ['Tags', 'multi_select', 'Red, Green, Blue'], ['Stars', 'rating'], ['Share', 'percent'], ['Due', 'datetime'], ['Notes', 'long_text']] as const) {
      await addField.getByLabel('Field name').fill(name);
      await addField.getByLabel('Type').selectOption(type);
      if (choices) await addField.getByLabel('Choices (comma separated)').fill(choices);
      await addField.getByRole('button', { name: 'Add field' }).click();
      await page.getByRole('columnheader', { name, exact: true }).waitFor();
    }
    const png = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-console-')), 'red.png');
    fs.writeFileSync(png, await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } }).png().toBuffer());
    await alpha.getByTestId('cell-files').click();
    await alpha.getByTestId('attachment-input').setInputFiles(png);
    const thumb = alpha.getByTestId('attachment-editor').getByTestId('attachment-thumb');
    await thumb.waitFor();
    assert.match((await thumb.getAttribute('src'))!, /^blob:/);
    await alpha.getByRole('button', { name: 'Done' }).click();
    await alpha.getByTestId('cell-files').getByTestId('attachment-thumb').waitFor();
    // The image really decoded (a CSP refusal or a broken blob would leave it 0 wide).
    assert.equal(await alpha.getByTestId('cell-files').getByTestId('attachment-thumb').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), 8);

    await alpha.getByTestId('cell-tags').click();
    await alpha.getByTestId('cell-editor').selectOption([{ label: 'Red' }, { label: 'Blue' }]);
    await alpha.getByTestId('cell-editor').press('Enter');
    await alpha.getByTestId('cell-tags').filter({ hasText: 'Blue' }).waitFor();

    await alpha.getByTestId('cell-stars').click();
    await alpha.getByTestId('cell-editor').fill('9');
    await alpha.getByTestId('cell-editor').press('Enter');
    await alpha.getByTestId('cell-error').waitFor();
    assert.match(await alpha.getByTestId('cell-error').innerText(), /\/values\/stars/);
    await alpha.getByTestId('cell-stars').click();
    await alpha.getByTestId('cell-editor').fill('4');
    await alpha.getByTestId('cell-editor').press('Enter');
    await alpha.getByTestId('cell-stars').filter({ hasText: '4' }).waitFor();
    assert.equal(await alpha.getByTestId('cell-error').count(), 0);
    // A percent is typed as shown (whole: the field's precision is 0) and stored as the fraction; a datetime-local wall time goes out with the browser's offset.
    await alpha.getByTestId('cell-share').click();
    await alpha.getByTestId('cell-editor').fill('12');
    await alpha.getByTestId('cell-editor').press('Enter');
    await alpha.getByTestId('cell-share').filter({ hasText: '12%' }).waitFor();
    await alpha.getByTestId('cell-due').click();
    await alpha.getByTestId('cell-editor').fill('2024-07-01T09:30');
    await alpha.getByTestId('cell-editor').press('Enter');
    await alpha.getByTestId('cell-due').filter({ hasText: /2024|7\/1|1\/7/ }).waitFor();
    // Enter is a new line in a long text; Ctrl+Enter saves.
    await alpha.getByTestId('cell-notes').click();
    await alpha.getByTestId('cell-editor').fill('line one');
    await alpha.getByTestId('cell-editor').press('Enter');
    await alpha.getByTestId('cell-editor').pressSequentially('line two');
    await alpha.getByTestId('cell-editor').press('Control+Enter');
    await alpha.getByTestId('cell-notes').filter({ hasText: 'line two' }).waitFor();
    await shot(page, '11-attachment-multi-select');

    const alphaNow = (await api('get', `${R}/${alphaId}`, token).expect(200)).body;
    assert.deepEqual(
      alphaNow.values.files.map((f: { name: string; mime_type: string; width: number }) => [f.name, f.mime_type, f.width]),
      [['red.png', 'image/png', 8]],
    );
    assert.deepEqual(alphaNow.values.tags.map((c: { label: string }) => c.label), ['Red', 'Blue']);
    assert.equal(alphaNow.values.stars, 4);
    assert.equal(alphaNow.values.share, 0.12);
    assert.equal(alphaNow.values.due, await page.evaluate(() => new Date('2024-07-01T09:30').toISOString()));
    assert.equal(alphaNow.values.notes, 'line one\nline two');

    await miaContext.close();
    await visitor.close();
  });
});
