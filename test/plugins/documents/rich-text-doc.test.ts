import assert from 'node:assert/strict';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';
import { ApiDocument } from '../../fixtures/openapi-document.ts';
import { checkRichText, RICH_TEXT_MARK_TYPES, RICH_TEXT_NODE_TYPES } from '../../../plugins/documents/rich-text.ts';
import { RICH_TEXT_EXAMPLE } from '../../../plugins/documents/rich-text.doc.ts';

const doc = (...content: unknown[]) => ({ type: 'doc', content });
const paragraph = (...content: unknown[]) => ({ type: 'paragraph', content });
const USER = '0190c7a2-5b7e-7000-8000-000000000003';

describe('rich text in the API reference', () => {
  const kernel = suiteKernel();
  let api: ApiDocument;
  before(async () => {
    api = new ApiDocument((await kernel().request.get('/api/v1/openapi.json').expect(200)).body);
  });
  const refused = (value: unknown) => api.failure('/components/schemas/RichText', value) !== null;

  it('documents every node and mark the server takes, the mention node among them, and nothing else', () => {
    const schemas = api.doc.components.schemas;
    const named = (prefix: string) => Object.keys(schemas).filter((name) => name.startsWith(prefix)).map((name) => name.slice(prefix.length)).sort();
    assert.deepEqual(named('RichTextNode.'), [...RICH_TEXT_NODE_TYPES].sort());
    assert.deepEqual(named('RichTextMark.'), [...RICH_TEXT_MARK_TYPES].sort());
    assert.deepEqual(schemas['RichTextNode.mention'].properties.attrs.required, ['user_id']);
    const used = new Set(JSON.stringify(RICH_TEXT_EXAMPLE).match(/"type":"[a-z_]+"/g)!.map((m) => m.slice(8, -1)));
    assert.deepEqual([...RICH_TEXT_NODE_TYPES, ...RICH_TEXT_MARK_TYPES].filter((type) => !used.has(type)), [], 'the example shows every node and mark');
    assert.deepEqual(checkRichText(RICH_TEXT_EXAMPLE, '').errors, []);
    assert.equal(api.failure('/components/schemas/RichText', RICH_TEXT_EXAMPLE), null);
  });

  it('shows the RichText schema wherever rich text is written or read', () => {
    const content = (path: string, method: string) => api.doc.paths[`/api/v1${path}`][method].requestBody.content['application/json'].schema.properties.content;
    assert.equal(content('/workspaces/{ws}/databases/{db}/records/{id}/comments', 'post').$ref, '#/components/schemas/RichText');
    assert.equal(content('/workspaces/{ws}/databases/{db}/records/{id}/description', 'put').$ref, '#/components/schemas/RichText');
    assert.equal(content('/workspaces/{ws}/documents/{id}/content', 'put').$ref, '#/components/schemas/RichText');
    const read = api.doc.paths['/api/v1/workspaces/{ws}/documents/{id}/content'].get.responses['200'].content['application/json'].schema.properties.content;
    assert.deepEqual(read.anyOf.map((s: { $ref?: string; type?: string }) => s.$ref ?? s.type), ['#/components/schemas/RichText', 'null']);
  });

  it('refuses in the reference what the server refuses, and takes what it takes', () => {
    const cases: Array<[string, unknown]> = [
      ['a mention naming nobody', doc(paragraph({ type: 'mention', attrs: {} }))],
      ['a mention in both forms at once', doc(paragraph({ type: 'mention', attrs: { user_id: USER }, user_id: USER }))],
      ['a heading of level 4', doc({ type: 'heading', attrs: { level: 4 }, content: [] })],
      ['a javascript: link', doc(paragraph({ type: 'text', text: 'x', marks: [{ type: 'link', attrs: { href: 'javascript:alert(1)' } }] }))],
      ['marks on a paragraph', doc({ type: 'paragraph', marks: [{ type: 'bold' }] })],
      ['content in a leaf', doc(paragraph({ type: 'hard_break', content: [] }))],
      ['an unknown node', doc({ type: 'script' })],
      ['empty text', doc(paragraph({ type: 'text', text: '' }))],
    ];
    for (const [what, value] of cases) {
      assert.notDeepEqual(checkRichText(value, '').errors, [], `the server takes ${what}`);
      assert.ok(refused(value), `the reference takes ${what}`);
    }
    for (const value of [doc(paragraph({ type: 'mention', user_id: USER })), doc({ type: 'paragraph', attrs: {} }), doc(), doc({ type: 'code_block', attrs: { language: null } })]) {
      assert.deepEqual(checkRichText(value, '').errors, []);
      assert.ok(!refused(value), JSON.stringify(value));
    }
  });
});
