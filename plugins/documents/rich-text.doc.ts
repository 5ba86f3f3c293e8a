import { documented, Type, type SchemaDoc } from '../../core/schema.ts';
import { MAX_RICH_TEXT_DEPTH, MAX_RICH_TEXT_NODES } from './rich-text.ts';

/*
 * Rich text as the API reference shows it: every node and mark `checkRichText` takes, with its attributes. The
 * validator is code (its 422s point into the document and name each mistake); this is its documentation form, kept
 * to the same names by test/plugins/documents/rich-text-doc.test.ts.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const UUID = { type: 'string', format: 'uuid' };
const children = { type: 'array', items: ref('RichTextNode'), description: 'Child nodes. Which node may hold which is the editor\'s business; leaves hold none.' };
const noAttrs = { type: 'object', additionalProperties: false, maxProperties: 0 };

function node(type: string, description: string, properties: Record<string, object> = {}, required: string[] = [], extra: object = {}): object {
  return { type: 'object', title: type, description, additionalProperties: false, required: ['type', ...required], properties: { type: { const: type }, attrs: noAttrs, ...properties }, ...extra };
}

const attrs = (properties: Record<string, object>, required: string[] = []) => ({ type: 'object', additionalProperties: false, ...(required.length ? { required } : {}), properties });

/** Each node by its `type`. */
export const RICH_TEXT_NODE_SCHEMAS: Record<string, object> = {
  paragraph: node('paragraph', 'A paragraph.', { content: children }),
  heading: node('heading', 'A heading of level 1 to 3.', { attrs: attrs({ level: { enum: [1, 2, 3] } }, ['level']), content: children }, ['attrs']),
  text: node(
    'text',
    'A run of text, with its marks (each mark type at most once).',
    { text: { type: 'string', minLength: 1 }, marks: { type: 'array', items: ref('RichTextMark') } },
    ['text'],
  ),
  bullet_list: node('bullet_list', 'A bulleted list of `list_item`s.', { content: children }),
  ordered_list: node('ordered_list', 'A numbered list of `list_item`s, from `start` (default 1).', { attrs: attrs({ start: { type: 'integer', minimum: 0, maximum: 1_000_000 } }), content: children }),
  list_item: node('list_item', 'An item of a list.', { content: children }),
  blockquote: node('blockquote', 'A quotation.', { content: children }),
  code_block: node('code_block', 'Preformatted code.', { attrs: attrs({ language: { anyOf: [{ type: 'string', maxLength: 50 }, { type: 'null' }] } }), content: children }),
  hard_break: node('hard_break', 'A line break inside a block.'),
  horizontal_rule: node('horizontal_rule', 'A horizontal rule.'),
  mention: node(
    'mention',
    'A mention of a member of the workspace: shown as `@name`, and it notifies them (when they can see what mentions them). ' +
      'The flat form `{ "type": "mention", "user_id": "…" }` is taken too. A comment may mention only members of the workspace (422 otherwise).',
    { attrs: attrs({ user_id: UUID }, ['user_id']), user_id: UUID },
    [],
    { oneOf: [{ required: ['attrs'] }, { required: ['user_id'] }] },
  ),
  image: node('image', 'An image uploaded with `POST /workspaces/{ws}/files`, named by its id (a file of the same workspace).', { attrs: attrs({ file_id: UUID }, ['file_id']) }, ['attrs']),
};

const mark = (type: string, description: string) => ({ type: 'object', title: type, description, additionalProperties: false, required: ['type'], properties: { type: { const: type }, attrs: noAttrs } });

/** Each mark by its `type`. */
export const RICH_TEXT_MARK_SCHEMAS: Record<string, object> = {
  bold: mark('bold', 'Bold text.'),
  italic: mark('italic', 'Italic text.'),
  strike: mark('strike', 'Struck-through text.'),
  code: mark('code', 'Inline code.'),
  link: {
    type: 'object',
    title: 'link',
    description: 'A link to an http, https or mailto address (no other scheme: nothing that runs in a reader\'s browser).',
    additionalProperties: false,
    required: ['type', 'attrs'],
    properties: {
      type: { const: 'link' },
      attrs: attrs({ href: { type: 'string', maxLength: 2048, pattern: '^([Hh][Tt][Tt][Pp][Ss]?://|[Mm][Aa][Ii][Ll][Tt][Oo]:)' } }, ['href']),
    },
  },
};

/** A document using every node and mark: the reference's example. */
export const RICH_TEXT_EXAMPLE = {
  type: 'doc',
  content: [
    { type: 'heading', attrs: { level: 1 }, content: [{ type: 'text', text: 'Launch plan' }] },
    {
      type: 'paragraph',
      content: [
        { type: 'text', text: 'Ask ' },
        { type: 'mention', attrs: { user_id: '0190c7a2-5b7e-7000-8000-000000000003' } },
        { type: 'text', text: ' about the ' },
        { type: 'text', text: 'budget', marks: [{ type: 'bold' }, { type: 'link', attrs: { href: 'https://example.com/budget' } }] },
        { type: 'hard_break' },
        { type: 'text', text: 'due Friday', marks: [{ type: 'italic' }, { type: 'strike' }, { type: 'code' }] },
      ],
    },
    { type: 'bullet_list', content: [{ type: 'list_item', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Press kit' }] }] }] },
    { type: 'ordered_list', attrs: { start: 1 }, content: [{ type: 'list_item', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Announce' }] }] }] },
    { type: 'blockquote', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Ship it.' }] }] },
    { type: 'code_block', attrs: { language: 'sh' }, content: [{ type: 'text', text: 'npm start' }] },
    { type: 'horizontal_rule' },
    { type: 'image', attrs: { file_id: '0190c7a2-5b7e-7000-8000-000000000030' } },
  ],
};

const RICH_TEXT_DOC: SchemaDoc = {
  ref: 'RichText',
  schemas: {
    RichText: {
      type: 'object',
      title: 'Rich text',
      description:
        `A TipTap/ProseMirror JSON document: \`{ "type": "doc", "content": [nodes] }\`. At most ${MAX_RICH_TEXT_NODES} nodes, nested at most ` +
        `${MAX_RICH_TEXT_DEPTH} levels deep. Its plain-text form (blocks on lines of their own, a mention as \`@name\`, images left out) is what search indexes and mail shows.`,
      additionalProperties: false,
      required: ['type', 'content'],
      properties: { type: { const: 'doc' }, content: { type: 'array', items: ref('RichTextNode') } },
      example: RICH_TEXT_EXAMPLE,
    },
    RichTextNode: { oneOf: Object.keys(RICH_TEXT_NODE_SCHEMAS).map((name) => ref(`RichTextNode.${name}`)) },
    RichTextMark: { oneOf: Object.keys(RICH_TEXT_MARK_SCHEMAS).map((name) => ref(`RichTextMark.${name}`)) },
    ...Object.fromEntries(Object.entries(RICH_TEXT_NODE_SCHEMAS).map(([name, schema]) => [`RichTextNode.${name}`, schema])),
    ...Object.fromEntries(Object.entries(RICH_TEXT_MARK_SCHEMAS).map(([name, schema]) => [`RichTextMark.${name}`, schema])),
  },
};

/**
 * A rich-text member of a body or an answer: any JSON to the router (the service checks it with `checkRichText`, whose
 * 422s point at each mistake), the `RichText` component in the reference.
 */
export const richTextSchema = (description: string) => documented(Type.Unknown({ description }), RICH_TEXT_DOC);
