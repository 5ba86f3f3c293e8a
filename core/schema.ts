import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema, Static } from '@sinclair/typebox';
import { validationFailed, type ErrorDetail } from './errors.ts';
import type { Resolve } from './container.ts';

export { Type } from '@sinclair/typebox';

/** A UUID in its canonical text form, any case (ids in paths, cursors and cells). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export type { TSchema, Static };

// ajv-formats ships CJS; under NodeNext its default export arrives wrapped.
export const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

/**
 * One ajv instance for JSON bodies: schemas compile once and are cached by identity.
 * `coerceTypes` is off: a JSON API must not turn "1" into 1 behind a client's back.
 */
export const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, removeAdditional: false });
addFormats(ajv);

/** For values that can only arrive as strings (path, query, environment): coerced to the schema's types. */
const coercingAjv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: 'array' });
addFormats(coercingAjv);

const compiled = new WeakMap<object, ValidateFunction>();
const compiledCoercing = new WeakMap<object, ValidateFunction>();

export function compile(schema: TSchema | object, opts: { coerce?: boolean } = {}): ValidateFunction {
  const cache = opts.coerce ? compiledCoercing : compiled;
  let fn = cache.get(schema);
  if (!fn) {
    const instance = opts.coerce ? coercingAjv : ajv;
    // ajv keeps every schema it compiled for good (its cache, and the scope of the code it generated), and with it
    // all the schema holds: a route's documentation closes over its kernel's registries, so a test process kept
    // every kernel it ever started (2 MB of heap each, 1 GB by the end of a run, and collections that took ever
    // longer). It compiles a copy without the documentation; the WeakMap above caches by identity.
    const bare = withoutDocs(schema);
    fn = instance.compile(bare);
    instance.removeSchema(bare);
    cache.set(schema, fn);
  }
  return fn;
}

/** A copy of a schema without the documentation `documented` adds (which ajv ignores and need not keep). */
function withoutDocs(schema: object): object {
  if (Array.isArray(schema)) return schema.map((item: unknown) => (item && typeof item === 'object' ? withoutDocs(item) : item));
  if (Object.getPrototypeOf(schema) !== Object.prototype) return schema;
  const copy: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(schema)) {
    if (key === DOC_KEYWORD) continue;
    const value = (schema as Record<string | symbol, unknown>)[key];
    copy[key] = value && typeof value === 'object' ? withoutDocs(value) : value;
  }
  return copy;
}

function pointerOf(err: ErrorObject, base: string): string {
  let path = err.instancePath;
  if (err.keyword === 'additionalProperties') {
    path += `/${escapePointer(String(err.params.additionalProperty))}`;
  } else if (err.keyword === 'required') {
    path += `/${escapePointer(String(err.params.missingProperty))}`;
  }
  return `${base}${path}`;
}

function messageOf(err: ErrorObject): string {
  switch (err.keyword) {
    case 'additionalProperties':
      return `Unknown property "${err.params.additionalProperty}".`;
    case 'required':
      return `Property "${err.params.missingProperty}" is required.`;
    case 'enum':
      return `Must be one of: ${(err.params.allowedValues as unknown[]).map(String).join(', ')}.`;
    default:
      return `${err.message ?? 'is invalid'}`.replace(/^./, (c) => c.toUpperCase()) + '.';
  }
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * A union of literals (`Type.Union([Type.Literal('grid'), …])`) fails with one `const` error per
 * branch: one sentence per place instead, naming every allowed value (`null` too when allowed).
 */
function allowedValues(errors: ErrorObject[]): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const err of errors) if (err.keyword === 'const') byPath.set(err.instancePath, [...(byPath.get(err.instancePath) ?? []), JSON.stringify(err.params.allowedValue)]);
  for (const err of errors) if (err.keyword === 'type' && err.params.type === 'null' && byPath.has(err.instancePath)) byPath.get(err.instancePath)!.push('null');
  return byPath;
}

export function toErrorDetails(errors: ErrorObject[] | null | undefined, base = ''): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  const allowed = allowedValues(errors ?? []);
  for (const err of errors ?? []) {
    // anyOf/oneOf failures repeat the branch errors; the branch errors carry the useful pointer.
    if (err.keyword === 'anyOf' || err.keyword === 'oneOf' || err.keyword === 'if') continue;
    const values = allowed.get(err.instancePath);
    const literal = values && (err.keyword === 'const' || (err.keyword === 'type' && err.params.type === 'null'));
    const message = literal ? (values.length === 1 ? `Must be ${values[0]}.` : `Must be one of ${values.join(', ')}.`) : messageOf(err);
    const detail = { pointer: pointerOf(err, base), detail: message };
    const key = `${detail.pointer}\u0000${detail.detail}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(detail);
    }
  }
  return out;
}

/** Validates `value` in place (defaults applied) and throws a 422 with pointers under `base`. */
export function assertValid<T extends TSchema>(schema: T, value: unknown, base = ''): asserts value is Static<T> {
  const validate = compile(schema);
  if (!validate(value)) throw validationFailed(toErrorDetails(validate.errors, base));
}

export interface SchemaDoc {
  ref?: string;
  schemas?: Record<string, object>;
  also?: object;
}

/** What a documentation form built late may look up: the kernel's services, each as its owner sees it. */
export interface DocContext {
  resolve: Resolve;
}

/** Where `documented` keeps a schema's documentation form (a keyword ajv ignores). */
export const DOC_KEYWORD = 'x-tessera-doc';

/**
 * A schema whose OpenAPI form says more than what the router validates. The filter AST, whose
 * compiler reports every mistake at its own pointer (a recursive JSON schema would bury them under
 * anyOf noise), is documented exactly: `ref` names the component standing for it, `schemas` are
 * the components (`$ref: '#/components/schemas/…'` inside them may recurse). `also` adds keywords
 * a handler enforces with a clearer message than a schema would (`oneOf` of required members).
 * A function is called when the document is built, with the kernel building it: for what is known only once every
 * plugin has registered (the field types and their options).
 */
export function documented<T extends TSchema>(schema: T, doc: SchemaDoc | ((ctx: DocContext) => SchemaDoc)): T {
  return { ...schema, [DOC_KEYWORD]: doc } as T;
}

/**
 * A request schema as a client reads it: a property with a `default` is filled in by the server (ajv's `useDefaults`)
 * when left out, so it is not required of the client. Defaults apply where ajv applies them: in `properties` and
 * `items`, not inside `anyOf`/`oneOf` branches (there a required property stays required). Works on a plain copy.
 */
export function defaultsOptional<T>(schema: T): T {
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as Record<string, any>;
  const properties = node.properties && typeof node.properties === 'object' ? node.properties : undefined;
  if (properties) {
    for (const value of Object.values(properties)) defaultsOptional(value);
    if (Array.isArray(node.required)) {
      node.required = node.required.filter((name: string) => !(properties[name] && 'default' in properties[name]));
      if (node.required.length === 0) delete node.required;
    }
  }
  if (node.items) defaultsOptional(node.items);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') defaultsOptional(node.additionalProperties);
  return schema;
}
