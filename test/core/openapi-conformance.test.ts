import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type supertest from 'supertest';
import { suiteKernel } from '../fixtures/suite-kernel.ts';
import { ApiDocument, type Answer, type Operation } from '../fixtures/openapi-document.ts';
import { PNG } from '../plugins/users/images.ts';

/*
 * Every operation of the served document, called as the document describes it, answers with a status the operation
 * lists, `X-Request-Id`, and a body of a type it lists that passes the schema given for it. The calls come from the
 * document alone (a route added later is called too): path ids from what earlier calls created, bodies from the
 * operation's example with its placeholder ids swapped for real ones, and each operation is also called without a
 * credential, with a bearer that is no credential, and with a body it does not take or cannot parse.
 */

const PASSWORD = 'conformance passphrase';
const PLACEHOLDER = /^0(190c7a2-5b7e-7000-8000|0000000-0000-4000-8000)-[0-9a-f]{12}$/;
/** Path parameters no earlier call creates, by name: a value that names something real. */
const KNOWN: Record<string, string> = { name: 'swagger-ui.css', provider: 'github' };

const METHOD_ORDER = ['post', 'put', 'get', 'patch', 'delete'];
const depth = (path: string) => (path.match(/\{/g) ?? []).length;

/** Creates first (parents before children), then reads, updates and deletes (children before parents). */
function inOrder(ops: Operation[]): Operation[] {
  return [...ops].sort((a, b) => {
    const byMethod = METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method);
    if (byMethod) return byMethod;
    const byDepth = a.method === 'delete' ? depth(b.path) - depth(a.path) : depth(a.path) - depth(b.path);
    return byDepth || a.path.localeCompare(b.path);
  });
}

/** The raw bytes of every answer, whatever its type; of an event stream, which does not end, its first bytes, then it is closed. */
function collect(res: NodeJS.ReadableStream & { headers?: Record<string, string>; destroy?: () => void }, done: (err: Error | null, body: Buffer) => void): void {
  if (String(res.headers?.['content-type'] ?? '').startsWith('text/event-stream')) {
    res.once('data', (chunk: Buffer) => {
      done(null, chunk);
      res.destroy?.();
    });
    return;
  }
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('the served reference, against every answer', function () {
  this.timeout(120_000);
  const kernel = suiteKernel({ config: { metrics: { enabled: true } } });

  /** Ids created so far, by the path of the collection they were created in (`/api/v1/workspaces/{ws}/spaces`). */
  const created = new Map<string, string>();
  /** The value each path parameter name last took: what a parameter with no collection of its own falls back on. */
  const byName = new Map<string, string>();
  let auth: Record<string, string>;
  let email: string;
  let api: ApiDocument;
  const failures: string[] = [];
  const succeeded = new Set<string>();

  async function signIn(): Promise<void> {
    const res = await kernel().request.post('/api/v1/auth/sign-in').send({ email, password: PASSWORD }).expect(200);
    auth = { Authorization: `Bearer ${res.body.token}` };
  }

  /** An item of the collection, or of one of the same name elsewhere (`/workspaces/{ws}/folders` and `…/spaces/{id}/folders`). */
  function itemOf(collection: string): string | undefined {
    const name = collection.slice(collection.lastIndexOf('/'));
    return created.get(collection) ?? [...created].find(([other]) => other.endsWith(name))?.[1];
  }

  /** The path with each `{param}` an item of the collection before it. */
  function fill(path: string): string {
    return path.replace(/\{([^}]+)\}/g, (whole, name: string, offset: number) => {
      const value = itemOf(path.slice(0, offset - 1)) ?? KNOWN[name] ?? byName.get(name) ?? randomUUID();
      byName.set(name, value);
      return encodeURIComponent(value);
    });
  }

  /** An id of the resource a body member names: `space_id` a space, `target_id` beside `target_type: "database"` a database. */
  function idFor(key: string, holder: Record<string, unknown>, path: string): string | undefined {
    const prefix = /^(from|to|target|scope|after)_/.exec(key)?.[1];
    const noun = (prefix && typeof holder[`${prefix}_type`] === 'string' ? String(holder[`${prefix}_type`]) : key.replace(/^(from|to|target|scope|after)_/, '')).replace(/_?ids?$/, '');
    if (noun === 'user') return byName.get('me');
    if (noun) for (const [collection, id] of created) if (collection.endsWith(`/${noun}s`)) return id;
    // `ids`, `after_id`, `id`: the items of the collection the operation works on.
    const within = [...created.keys()].filter((collection) => path.startsWith(collection)).sort((a, b) => b.length - a.length)[0];
    return within && created.get(within);
  }

  /** The example with its placeholder ids replaced by ids of what this run created. */
  function realise(value: unknown, path: string, key = '', holder: Record<string, unknown> = {}): unknown {
    if (typeof value === 'string') return PLACEHOLDER.test(value) ? (idFor(key, holder, path) ?? value) : value;
    if (Array.isArray(value)) return value.map((item) => realise(item, path, key, holder));
    if (value && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, realise(v, path, k, object)]));
    }
    return value;
  }

  /** The multipart parts an operation documents: a small PNG for each file, a documented value for each text part. */
  function parts(req: supertest.Test, schema: any): supertest.Test {
    for (const [name, part] of Object.entries<any>(schema?.properties ?? { file: { format: 'binary' } })) {
      if (part.format === 'binary') req = req.attach(name, PNG, { filename: 'pixel.png', contentType: 'image/png' });
      else if (part.examples?.[0] !== undefined || part.default !== undefined) req = req.field(name, String(part.examples?.[0] ?? part.default));
    }
    return req;
  }

  type Body = { kind: 'example' } | { kind: 'none' } | { kind: 'json'; text: string } | { kind: 'no file' };

  async function call(operation: Operation, headers: Record<string, string>, body: Body): Promise<Answer> {
    const { method, path, op } = operation;
    let req = (kernel().request as any)[method](fill(path)).set(headers).buffer(true).parse(collect) as supertest.Test;
    const json = op.requestBody?.content?.['application/json'];
    const multipart = op.requestBody?.content?.['multipart/form-data'];
    if (body.kind === 'json') req = req.set('Content-Type', 'application/json').send(body.text);
    else if (body.kind === 'example' && multipart) req = parts(req, multipart.schema);
    else if (body.kind === 'no file') req = req.field('note', 'a form with no file in it');
    else if (body.kind === 'example' && json) req = req.send(realise(json.example ?? {}, path) as object);
    const res = await req;
    return { status: res.status, headers: res.headers, body: res.body as Buffer };
  }

  async function check(operation: Operation, as: string, headers: Record<string, string>, body: Body): Promise<Answer> {
    const answer = await call(operation, headers, body);
    const failure = answer.status >= 500 ? `${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}` : api.answerFailure(operation, answer);
    if (failure) failures.push(`${operation.op.operationId} (${operation.method.toUpperCase()} ${operation.path}) ${as}: ${failure}`);
    return answer;
  }

  /** As the owner, with the example. A write that ended the owner's session (signing out) is followed by a new one. */
  async function asOwner(operation: Operation): Promise<void> {
    const answer = await check(operation, 'as the owner', auth, { kind: 'example' });
    if (answer.status >= 300) return;
    succeeded.add(operation.op.operationId);
    if (operation.method !== 'get' && (await kernel().request.get('/api/v1/me').set(auth)).status === 401) await signIn();
    if (operation.method === 'patch' || operation.method === 'delete' || !/json/.test(answer.headers['content-type'] ?? '')) return;
    // What a create made, or the first item of a list: what later paths name.
    const body = JSON.parse(answer.body.toString('utf8'));
    const id = operation.method === 'get' ? body?.data?.[0]?.id : body?.id;
    const collection = operation.path.replace(/\/\{[^}]+\}$/, '');
    if (typeof id === 'string' && !created.has(collection)) created.set(collection, id);
  }

  before(async () => {
    const t = kernel();
    api = new ApiDocument((await t.request.get('/api/v1/openapi.json').expect(200)).body);
    // The first account of an instance is its admin: every operation is in reach.
    email = `owner-${randomUUID()}@example.test`;
    const owner = (await t.request.post('/api/v1/auth/sign-up').send({ email, password: PASSWORD, name: 'Owner' }).expect(201)).body;
    auth = { Authorization: `Bearer ${owner.token}` };
    byName.set('me', owner.user.id);
    byName.set('user_id', owner.user.id);
  });

  it('answers every operation with a status, type and body the document gives it, most of them as a success', async () => {
    const operations = inOrder(api.operations());
    const writes = (o: Operation) => o.method === 'post' || o.method === 'put';
    // A create that needs what a later one makes (a database needs a space) gets another turn.
    for (let turn = 0; turn < 3; turn++) for (const operation of operations.filter((o) => writes(o) && !succeeded.has(o.op.operationId))) await asOwner(operation);
    for (const operation of operations.filter((o) => o.method === 'get')) await asOwner(operation);
    // Refusals, while everything the paths name still exists: a body is read only once the path has been found.
    for (const operation of operations) {
      await check(operation, 'without a credential', {}, { kind: 'none' });
      await check(operation, 'with a bearer that is no credential', { Authorization: 'Bearer tss_not-a-session' }, { kind: 'none' });
      const content = operation.op.requestBody?.content ?? {};
      if (content['application/json']) await check(operation, 'with a body that is not JSON', auth, { kind: 'json', text: '{"unterminated' });
      else if (content['multipart/form-data']) await check(operation, 'with a form that has no file', auth, { kind: 'no file' });
      else if (operation.method !== 'get') await check(operation, 'with a body it does not take', auth, { kind: 'json', text: '{"unexpected":true}' });
    }
    for (const operation of operations.filter((o) => o.method === 'patch' || o.method === 'delete')) await asOwner(operation);
    assert.deepEqual(failures, [], `${failures.length} answers contradict the document:\n  ${failures.join('\n  ')}`);
    // The calls do more than meet refusals.
    assert.ok(succeeded.size >= operations.length * 0.6, `only ${succeeded.size} of ${operations.length} operations answered 2xx: ${operations.filter((o) => !succeeded.has(o.op.operationId)).map((o) => o.op.operationId).join(', ')}`);
  });
});
