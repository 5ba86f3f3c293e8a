import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { checkRichText, imagesOf, mentionsOf, plainText, MAX_RICH_TEXT_DEPTH, type RichTextDoc } from '../../../plugins/documents/public.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

const doc = (...content: unknown[]) => ({ type: 'doc', content });
const text = (t: string, marks?: unknown[]) => ({ type: 'text', text: t, ...(marks ? { marks } : {}) });
const para = (...content: unknown[]) => ({ type: 'paragraph', content });
const pointers = (value: unknown) => checkRichText(value, '/content').errors.map((e) => e.pointer);

describe('documents: rich text', () => {
  storageIndependent();
  it('accepts every node and mark of the contract', () => {
    const user = randomUUID();
    const file = randomUUID();
    const value = doc(
      { type: 'heading', attrs: { level: 2 }, content: [text('Title')] },
      para(text('bold', [{ type: 'bold' }, { type: 'italic' }]), { type: 'hard_break' }, text('link', [{ type: 'link', attrs: { href: 'https://example.com' } }]), { type: 'mention', attrs: { user_id: user } }),
      { type: 'bullet_list', content: [{ type: 'list_item', content: [para(text('one', [{ type: 'strike' }, { type: 'code' }]))] }] },
      { type: 'ordered_list', attrs: { start: 3 }, content: [{ type: 'list_item', content: [para(text('mail', [{ type: 'link', attrs: { href: 'mailto:a@example.com' } }]))] }] },
      { type: 'blockquote', content: [para(text('quoted'))] },
      { type: 'code_block', attrs: { language: 'ts' }, content: [text('const a = 1;')] },
      { type: 'horizontal_rule' },
      { type: 'image', attrs: { file_id: file } },
    );
    const checked = checkRichText(value, '/content');
    assert.deepEqual(checked.errors, []);
    assert.deepEqual(checked.mentions, [user]);
    assert.deepEqual(checked.images.map((i) => i.fileId), [file]);
    assert.deepEqual(mentionsOf(value as RichTextDoc), [user]);
    assert.deepEqual(imagesOf(value as RichTextDoc), [file]);
  });

  it('refuses what the contract does not name, pointing at it', () => {
    assert.deepEqual(pointers(doc(text('x', [{ type: 'link', attrs: { href: 'javascript:alert(1)' } }]))), ['/content/content/0/marks/0/attrs/href']);
    assert.deepEqual(pointers(doc(para(text('x', [{ type: 'link', attrs: { href: 'data:text/html,hi' } }])))), ['/content/content/0/content/0/marks/0/attrs/href']);
    assert.deepEqual(pointers(doc({ type: 'iframe' })), ['/content/content/0/type']);
    assert.deepEqual(pointers(doc({ type: 'heading', attrs: { level: 4 } })), ['/content/content/0/attrs/level']);
    assert.deepEqual(pointers(doc({ type: 'paragraph', attrs: { style: 'x' } })), ['/content/content/0/attrs/style']);
    assert.deepEqual(pointers(doc(para(text('x', [{ type: 'underline' }])))), ['/content/content/0/content/0/marks/0/type']);
    assert.deepEqual(pointers(doc({ type: 'mention', attrs: { user_id: 'nobody' } })), ['/content/content/0/attrs/user_id']);
    assert.deepEqual(pointers(doc({ type: 'image', attrs: { src: 'https://evil.example/x.png' } })), ['/content/content/0/attrs/file_id', '/content/content/0/attrs/src']);
    assert.deepEqual(pointers(doc({ type: 'horizontal_rule', content: [] })), ['/content/content/0/content']);
    assert.deepEqual(pointers(doc(para({ type: 'text', text: '' }))), ['/content/content/0/content/0/text']);
    assert.deepEqual(pointers({ type: 'doc', content: [], onload: 'x' }), ['/content/onload']);
    assert.deepEqual(pointers('hello'), ['/content']);
    assert.deepEqual(pointers({ type: 'doc' }), ['/content/content']);
  });

  it('takes a mention written flat, as the route table shows it', () => {
    const user = randomUUID();
    const checked = checkRichText(doc(para({ type: 'mention', user_id: user })), '/content');
    assert.deepEqual(checked.errors, []);
    assert.deepEqual(checked.mentions, [user]);
  });

  it('stops at hostile depth and size without using the call stack', () => {
    let deep: unknown = text('x');
    for (let i = 0; i < 10_000; i += 1) deep = { type: 'blockquote', content: [deep] };
    const errors = checkRichText(doc(deep), '').errors;
    assert.equal(errors.length, 1);
    assert.match(errors[0].detail, new RegExp(`${MAX_RICH_TEXT_DEPTH} levels`));
    const wide = { type: 'doc', content: Array.from({ length: 200_000 }, () => ({ type: 'horizontal_rule' })) };
    assert.match(checkRichText(wide, '').errors[0].detail, /at most/);
  });

  it('gives a plain text with blocks on their lines and mentions by name', () => {
    const user = randomUUID();
    const value = doc({ type: 'heading', attrs: { level: 1 }, content: [text('Plan')] }, para(text('Ask '), { type: 'mention', attrs: { user_id: user } }, text(' now')), { type: 'bullet_list', content: [{ type: 'list_item', content: [para(text('a'))] }, { type: 'list_item', content: [para(text('b'))] }] });
    assert.equal(plainText(value as RichTextDoc, (id) => (id === user ? 'Mia' : undefined)), 'Plan\nAsk @Mia now\na\nb');
    assert.equal(plainText(value as RichTextDoc), 'Plan\nAsk @member now\na\nb');
  });
});
