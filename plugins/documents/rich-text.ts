import type { ErrorDetail } from '../../core/errors.ts';

/**
 * Rich text as clients send it: a TipTap/ProseMirror JSON document. The node and mark names accepted, and the
 * checks on them, are in this file's validator; other plugins (comments) validate through it.
 */
export interface RichTextNode {
  type: string;
  attrs?: Record<string, unknown>;
  marks?: Array<{ type: string; attrs?: Record<string, unknown> }>;
  text?: string;
  content?: RichTextNode[];
}

export interface RichTextDoc {
  type: 'doc';
  content: RichTextNode[];
}

/** Nesting below the request guard's 64 levels: deep enough for lists in quotes in lists, far from the stack's limit. */
export const MAX_RICH_TEXT_DEPTH = 40;
/** Nodes and marks in one document: a megabyte of real text holds far fewer. */
export const MAX_RICH_TEXT_NODES = 100_000;
/** Problems reported at once: enough to fix a document, bounded for a hostile one. */
const MAX_PROBLEMS = 20;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SAFE_HREF = /^(https?:\/\/|mailto:)/i;

type AttrCheck = (value: unknown) => string | null;

interface NodeRule {
  /** Whether it holds other nodes. */
  leaf: boolean;
  /** Attributes it may carry, and whether each is required. */
  attrs: Record<string, { required: boolean; check: AttrCheck }>;
}

const uuidAttr = (what: string): AttrCheck => (v) => (typeof v === 'string' && UUID.test(v) ? null : `must be the ${what}'s id (a UUID).`);
const userId = { required: true, check: uuidAttr('mentioned user') };

/**
 * The contract names the nodes and their attributes, not which may hold which: nesting is the editor's business,
 * so only leaves holding content are refused.
 */
const NODES: Record<string, NodeRule> = {
  paragraph: { leaf: false, attrs: {} },
  heading: { leaf: false, attrs: { level: { required: true, check: (v) => (v === 1 || v === 2 || v === 3 ? null : 'must be 1, 2 or 3.') } } },
  text: { leaf: true, attrs: {} },
  bullet_list: { leaf: false, attrs: {} },
  ordered_list: {
    leaf: false,
    attrs: { start: { required: false, check: (v) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 1_000_000 ? null : 'must be an integer from 0 to 1,000,000.') } },
  },
  list_item: { leaf: false, attrs: {} },
  blockquote: { leaf: false, attrs: {} },
  code_block: { leaf: false, attrs: { language: { required: false, check: (v) => (v === null || (typeof v === 'string' && v.length <= 50) ? null : 'must be a language name (≤ 50 characters) or null.') } } },
  hard_break: { leaf: true, attrs: {} },
  horizontal_rule: { leaf: true, attrs: {} },
  mention: { leaf: true, attrs: { user_id: userId } },
  image: { leaf: true, attrs: { file_id: { required: true, check: uuidAttr('file') } } },
};

const MARKS = new Set(['bold', 'italic', 'strike', 'code', 'link']);

/** The node and mark types rich text may hold (the reference documents each: rich-text.doc.ts). */
export const RICH_TEXT_NODE_TYPES: readonly string[] = Object.keys(NODES);
export const RICH_TEXT_MARK_TYPES: readonly string[] = [...MARKS];
const NODE_KEYS = new Set(['type', 'attrs', 'content', 'marks', 'text']);

export interface RichTextCheck {
  errors: ErrorDetail[];
  /** Users the document mentions, each once, in order of first mention. */
  mentions: string[];
  /** Files its images name, each once. */
  images: Array<{ fileId: string; pointer: string }>;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks `value` against the node list of API.md "Rich text", walking with a stack of its own (hostile nesting
 * cannot reach the call stack) and stopping at MAX_RICH_TEXT_NODES. Pointers are `base` plus the path inside the doc.
 * Whether mentioned users are members and images' files are in the workspace is the caller's to check.
 */
export function checkRichText(value: unknown, base: string): RichTextCheck {
  const errors: ErrorDetail[] = [];
  const mentions = new Set<string>();
  const images = new Map<string, string>();
  const fail = (pointer: string, detail: string) => errors.length < MAX_PROBLEMS && errors.push({ pointer, detail });
  if (!isObject(value) || value.type !== 'doc') {
    fail(base, 'Rich text must be a document: { "type": "doc", "content": [ … ] }.');
    return { errors, mentions: [], images: [] };
  }
  const extra = Object.keys(value).filter((k) => k !== 'type' && k !== 'content');
  if (extra.length > 0) fail(`${base}/${escapeToken(extra[0])}`, 'A document has only `type` and `content`.');
  if (!Array.isArray(value.content)) {
    fail(`${base}/content`, 'A document needs `content`, an array of nodes.');
    return { errors, mentions: [], images: [] };
  }

  let seen = 0;
  const stack: Array<{ node: unknown; pointer: string; depth: number }> = [];
  const pushChildren = (content: unknown[], pointer: string, depth: number) => {
    for (let i = content.length - 1; i >= 0; i -= 1) stack.push({ node: content[i], pointer: `${pointer}/content/${i}`, depth });
  };
  pushChildren(value.content, base, 1);

  while (stack.length > 0 && errors.length < MAX_PROBLEMS) {
    const { node, pointer, depth } = stack.pop()!;
    seen += 1;
    if (seen > MAX_RICH_TEXT_NODES) {
      fail(pointer, `A document holds at most ${MAX_RICH_TEXT_NODES} nodes.`);
      break;
    }
    if (depth > MAX_RICH_TEXT_DEPTH) {
      fail(pointer, `Rich text nests at most ${MAX_RICH_TEXT_DEPTH} levels deep.`);
      break;
    }
    if (!isObject(node) || typeof node.type !== 'string') {
      fail(pointer, 'A node is an object with a `type`.');
      continue;
    }
    const rule = NODES[node.type];
    if (!rule) {
      fail(`${pointer}/type`, `Unknown node type "${node.type.slice(0, 50)}".`);
      continue;
    }
    // API.md's route table writes a mention as `{ "type": "mention", "user_id" }`: that form is taken too.
    const flatMention = node.type === 'mention' && node.user_id !== undefined && node.attrs === undefined;
    const unknownKey = Object.keys(node).find((k) => !NODE_KEYS.has(k) && !(flatMention && k === 'user_id'));
    if (unknownKey) fail(`${pointer}/${escapeToken(unknownKey)}`, `A node has no member "${unknownKey.slice(0, 50)}".`);
    if (flatMention) {
      const problem = userId.check(node.user_id);
      if (problem) fail(`${pointer}/user_id`, `\`user_id\` ${problem}`);
    } else checkAttrs(node.attrs, rule.attrs, `${pointer}/attrs`, fail);

    if (node.type === 'text') {
      if (typeof node.text !== 'string' || node.text.length === 0) fail(`${pointer}/text`, 'A text node carries a non-empty `text`.');
      if (node.marks !== undefined) checkMarks(node.marks, `${pointer}/marks`, fail);
    } else {
      if (node.text !== undefined) fail(`${pointer}/text`, 'Only text nodes carry `text`.');
      if (node.marks !== undefined) fail(`${pointer}/marks`, 'Only text nodes carry marks.');
    }
    const mentioned = node.type === 'mention' ? mentionedUser(node) : undefined;
    if (mentioned) mentions.add(mentioned);
    if (node.type === 'image' && isObject(node.attrs) && typeof node.attrs.file_id === 'string' && UUID.test(node.attrs.file_id)) {
      const id = node.attrs.file_id.toLowerCase();
      if (!images.has(id)) images.set(id, `${pointer}/attrs/file_id`);
    }

    if (node.content === undefined) continue;
    if (rule.leaf) {
      fail(`${pointer}/content`, `A ${node.type} node has no content.`);
      continue;
    }
    if (!Array.isArray(node.content)) {
      fail(`${pointer}/content`, '`content` is an array of nodes.');
      continue;
    }
    pushChildren(node.content, pointer, depth + 1);
  }
  return { errors, mentions: [...mentions], images: [...images].map(([fileId, pointer]) => ({ fileId, pointer })) };
}

function checkAttrs(attrs: unknown, rules: NodeRule['attrs'], pointer: string, fail: (pointer: string, detail: string) => void): void {
  if (attrs === undefined) {
    const required = Object.keys(rules).find((k) => rules[k].required);
    if (required) fail(pointer, `This node needs \`attrs.${required}\`.`);
    return;
  }
  if (!isObject(attrs)) {
    fail(pointer, '`attrs` is an object.');
    return;
  }
  for (const [name, rule] of Object.entries(rules)) {
    if (attrs[name] === undefined) {
      if (rule.required) fail(`${pointer}/${name}`, `This node needs \`attrs.${name}\`.`);
      continue;
    }
    const problem = rule.check(attrs[name]);
    if (problem) fail(`${pointer}/${name}`, `\`${name}\` ${problem}`);
  }
  const unknown = Object.keys(attrs).find((k) => !(k in rules));
  if (unknown) fail(`${pointer}/${escapeToken(unknown)}`, `This node has no attribute "${unknown.slice(0, 50)}".`);
}

/** The user a mention node names, in either form, lower-cased; undefined when it names none validly. */
function mentionedUser(node: Record<string, unknown>): string | undefined {
  const id = isObject(node.attrs) ? node.attrs.user_id : node.user_id;
  return typeof id === 'string' && UUID.test(id) ? id.toLowerCase() : undefined;
}

function checkMarks(marks: unknown, pointer: string, fail: (pointer: string, detail: string) => void): void {
  if (!Array.isArray(marks)) {
    fail(pointer, '`marks` is an array.');
    return;
  }
  const types = new Set<string>();
  marks.forEach((mark: unknown, i) => {
    const at = `${pointer}/${i}`;
    if (!isObject(mark) || typeof mark.type !== 'string' || !MARKS.has(mark.type)) {
      fail(isObject(mark) && typeof mark.type === 'string' ? `${at}/type` : at, 'A mark is one of bold, italic, strike, code, link.');
      return;
    }
    if (types.has(mark.type)) fail(`${at}/type`, `The mark ${mark.type} is given twice.`);
    types.add(mark.type);
    const extra = Object.keys(mark).find((k) => k !== 'type' && k !== 'attrs');
    if (extra) fail(`${at}/${escapeToken(extra)}`, `A mark has no member "${extra.slice(0, 50)}".`);
    if (mark.type !== 'link') {
      if (mark.attrs !== undefined && !(isObject(mark.attrs) && Object.keys(mark.attrs).length === 0)) fail(`${at}/attrs`, `The ${mark.type} mark has no attributes.`);
      return;
    }
    if (!isObject(mark.attrs)) {
      fail(`${at}/attrs`, 'A link needs `attrs.href`.');
      return;
    }
    const href = mark.attrs.href;
    // Only schemes that cannot run code in a reader's browser (no javascript:, data:, vbscript:).
    if (typeof href !== 'string' || href.length > 2048 || !SAFE_HREF.test(href)) fail(`${at}/attrs/href`, 'A link goes to an http, https or mailto address (≤ 2048 characters).');
    const unknown = Object.keys(mark.attrs).find((k) => k !== 'href');
    if (unknown) fail(`${at}/attrs/${escapeToken(unknown)}`, `A link has no attribute "${unknown.slice(0, 50)}".`);
  });
}

function escapeToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

const BLOCK_BREAK = new Set(['paragraph', 'heading', 'list_item', 'blockquote', 'code_block', 'horizontal_rule', 'bullet_list', 'ordered_list']);

/**
 * The text of a document, as search indexes it and mail shows it: blocks on lines of their own, a mention as
 * `@name` (`nameOf` answers, else `@member`), images left out. Walks with its own stack, like the validator.
 */
export function plainText(doc: RichTextDoc, nameOf: (userId: string) => string | undefined = () => undefined): string {
  const out: string[] = [];
  const stack: Array<RichTextNode | 'break'> = [...doc.content].reverse();
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item === 'break') {
      if (out.length > 0 && out[out.length - 1] !== '\n') out.push('\n');
      continue;
    }
    if (item.type === 'text') out.push(item.text ?? '');
    else if (item.type === 'hard_break') out.push('\n');
    else if (item.type === 'mention') out.push(`@${nameOf(mentionedUser(item as unknown as Record<string, unknown>) ?? '') ?? 'member'}`);
    if (BLOCK_BREAK.has(item.type)) stack.push('break');
    if (item.content) for (let i = item.content.length - 1; i >= 0; i -= 1) stack.push(item.content[i]);
  }
  return out.join('').trim();
}

/** The users a (valid) document mentions, each once. */
export function mentionsOf(doc: RichTextDoc): string[] {
  return checkRichText(doc, '').mentions;
}

/** The files a (valid) document's images name, each once. */
export function imagesOf(doc: RichTextDoc): string[] {
  return checkRichText(doc, '').images.map((i) => i.fileId);
}
