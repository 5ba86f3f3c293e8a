import assert from 'node:assert/strict';
import { attachmentsWorld, binary, png, type AttachmentsWorld } from './setup.ts';

describe('attachments: upload, cell, get, content, delete', () => {
  let w: AttachmentsWorld;
  beforeEach(async () => {
    w = await attachmentsWorld();
  });
  afterEach(() => w.t.stop());

  it('uploads a file to the record, shows it in the cell and serves it', async () => {
    const bytes = await png(300, 120);
    const res = await w.upload(bytes, 'plan.png', 'application/pdf');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const a = res.body;
    assert.equal(a.mime_type, 'image/png');
    assert.equal(a.size, bytes.length);
    assert.equal(a.width, 300);
    assert.equal(a.height, 120);
    assert.equal(a.url, `${w.att(`/${a.id}`)}/content`);
    const record = (await w.t.request.get(w.url(`/${w.record}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(record.values.files, [{ id: a.id, name: 'plan.png', mime_type: 'image/png', size: bytes.length, width: 300, height: 120, url: a.url, thumbnail_url: a.thumbnail_url }]);
    const content = await w.t.request.get(a.url).set(w.member.auth).buffer(true).parse(binary).expect(200);
    assert.equal(content.headers['content-type'], 'image/png');
    assert.match(content.headers['content-disposition'], /^inline;/);
    assert.ok(Buffer.compare(content.body, bytes) === 0);
  });
});
