import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { recordsWorld, type RecordsWorld } from '../plugins/records/setup.ts';
import { suiteKernel } from '../fixtures/suite-kernel.ts';
import { chunkedPost } from '../fixtures/raw-http.ts';

/** A JSON body renaming a record, with `name` given as raw bytes between the quotes. */
const renaming = (name: Buffer) => Buffer.concat([Buffer.from('{"values":{"name":"'), name, Buffer.from('"}}')]);

describe('JSON bodies are UTF-8: bytes that are not are refused, never replaced', () => {
  let w: RecordsWorld;
  let record: string;
  const patch = (body: Buffer, headers: Record<string, string> = {}) =>
    // Sent as the bytes they are (supertest would write a Buffer out as JSON).
    w.t.request.patch(w.url(`/${record}`)).set(w.editor.auth).set({ 'Content-Type': 'application/json', ...headers }).serialize((b: Buffer) => b as never).send(body as never);
  const stored = async () => (await w.t.request.get(w.url(`/${record}`)).set(w.editor.auth).expect(200)).body as { version: number; values: { name: string } };

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
    record = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Before' } }).expect(201)).body.id;
  });

  it('answers 400 malformed_json to FF FE C3 and changes nothing', async () => {
    const res = await patch(renaming(Buffer.from([0xff, 0xfe, 0xc3])));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.equal(res.body.code, 'malformed_json');
    assert.match(res.body.detail, /UTF-8/);
    assert.deepEqual([(await stored()).values.name, (await stored()).version], ['Before', 1]);
  });

  it('refuses overlong forms, encoded surrogates and a truncated character, compressed or chunked as well', async () => {
    const bad = [
      [0xc0, 0xaf], // an overlong "/"
      [0xed, 0xa0, 0x80], // U+D800 written as UTF-8
      [0xe2, 0x82], // the first two bytes of "€"
    ];
    for (const bytes of bad) assert.equal((await patch(renaming(Buffer.from(bytes)))).status, 400, bytes.join(' '));
    const gzipped = await patch(gzipSync(renaming(Buffer.from([0xff, 0xfe, 0xc3]))), { 'Content-Encoding': 'gzip' });
    assert.equal(gzipped.status, 400, gzipped.text);
    const chunked = await chunkedPost(`${w.t.url}${w.url(`/${record}`)}`, { ...w.editor.auth, 'Content-Type': 'application/json' }, [Buffer.from('{"values":{"name":"'), Buffer.from([0xff]), Buffer.from('"}}')], 'PATCH');
    assert.equal(chunked.status, 400, chunked.text);
    assert.equal(chunked.body.code, 'malformed_json');
    assert.deepEqual([(await stored()).values.name, (await stored()).version], ['Before', 1]);
  });

  it('takes every valid character as sent: one split across chunks, a gzip body, U+FFFD itself', async () => {
    const split = await chunkedPost(`${w.t.url}${w.url(`/${record}`)}`, { ...w.editor.auth, 'Content-Type': 'application/json' }, [Buffer.from('{"values":{"name":"caf\xc3', 'latin1'), Buffer.from('\xa9 \xe2\x82', 'latin1'), Buffer.from('\xac"}}', 'latin1')], 'PATCH');
    assert.equal(split.status, 200, split.text);
    assert.equal((await stored()).values.name, 'café €');
    await patch(gzipSync(renaming(Buffer.from('Ünïcode 🎉'))), { 'Content-Encoding': 'gzip' }).expect(200);
    assert.equal((await stored()).values.name, 'Ünïcode 🎉');
    await patch(renaming(Buffer.from([0xef, 0xbf, 0xbd]))).expect(200);
    assert.equal((await stored()).values.name, '\ufffd');
  });

  it('answers 415 to a Content-Encoding it cannot read', async () => {
    const res = await patch(renaming(Buffer.from('x')), { 'Content-Encoding': 'compress' });
    assert.equal(res.status, 415, res.text);
    assert.equal(res.body.code, 'unsupported_media_type');
  });
});
