import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../core/testing.ts';
import { cases, SEED as SUITE_SEED } from '../fixtures/randomised.ts';

/**
 * Every write route of the OpenAPI document, called with random and hostile bodies by a caller
 * allowed to make it (the workspace admin, an instance admin): whatever arrives, the answer is
 * never a 5xx. Bodies are the route's own example with one place replaced, or any JSON at all.
 * FUZZ_RUNS raises the bodies per route (default 12, on the suite's fixed seed: see randomised.ts); FUZZ_SEED replays a failure.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? cases(12));
const SEED = { seed: process.env.FUZZ_SEED === undefined ? SUITE_SEED : Number(process.env.FUZZ_SEED) };

/** Routes whose success ends the caller's session or world: the rest would then only meet 401s and 404s. */
const SKIPPED = new Set(['auth.signOut', 'workspaces.delete']);

const deep = (levels: number): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i += 1) value = i % 2 === 0 ? [value] : { d: value };
  return value;
};

/** Values that broke routes once, or could: NUL, lone surrogates, numbers past every limit, deep and wide shapes. */
const hostile = fc.constantFrom<unknown>(
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '',
  ' ',
  'x'.repeat(100_000),
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  -0,
  0.1 + 0.2,
  1e-320,
  true,
  null,
  [],
  {},
  deep(70),
  deep(10),
  Array.from({ length: 2_000 }, (_, i) => i),
  JSON.parse('{"__proto__": {"admin": true}}'),
  { constructor: { prototype: { polluted: true } } },
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-4FFF-8FFF-FFFFFFFFFFFF',
  "'; DROP TABLE users; --",
  '{{record.name}}',
  '../../etc/passwd',
  '2026-02-30',
  '9999-12-31T23:59:59.999Z',
);

/** Paths into `value` (objects and arrays), the root included. */
function placesIn(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const here = [at];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => placesIn(v, [...at, i]))];
  if (value && typeof value === 'object') return [...here, ...Object.entries(value).flatMap(([k, v]) => placesIn(v, [...at, k]))];
  return here;
}

function replaceAt(value: unknown, at: Array<string | number>, replacement: unknown): unknown {
  if (at.length === 0) return replacement;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[at[0]] = replaceAt(copy[at[0]], at.slice(1), replacement);
  return copy;
}

/** A body: the example with one place (or a new member) made hostile or random, or any JSON value. */
function bodyArb(example: unknown): fc.Arbitrary<unknown> {
  const places = placesIn(example ?? {});
  const anyValue = fc.oneof(hostile, fc.jsonValue({ maxDepth: 3 }));
  const mutated = fc.tuple(fc.constantFrom(...places), anyValue).map(([at, v]) => replaceAt(example ?? {}, at, v));
  const extra = fc.tuple(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'id', 'workspace_id', 'role', 'a\u0000')), anyValue).map(([k, v]) => ({ ...(example as object), [k]: v }));
  return fc.oneof(mutated, mutated, extra, anyValue);
}

interface FuzzWorld {
  ids: Record<string, string>;
  admin: SignedUpUser;
}

/** One of each thing a write route names, so that calls reach their bodies instead of a 404. */
async function buildWorld(t: TestKernel): Promise<FuzzWorld> {
  const admin = await signUp(t, { name: 'Fuzz admin' });
  const other = await signUp(t, { name: 'Other' });
  const as = (method: 'post' | 'put' | 'patch', path: string, body: object) => t.request[method](`/api/v1${path}`).set(admin.auth).send(body).then((r) => {
    if (r.status >= 300) throw new Error(`${path} → ${r.status} ${r.text}`);
    return r.body;
  });
  const ws = (await createWorkspace(t, admin)).id;
  await t.db('workspace_members').insert({ workspace_id: ws, user_id: other.id, role: 'member' });
  const space = (await as('post', `/workspaces/${ws}/spaces`, { name: 'S' })).id;
  const folder = (await as('post', `/workspaces/${ws}/spaces/${space}/folders`, { name: 'F' })).id;
  const db = (await as('post', `/workspaces/${ws}/databases`, { name: 'D', space_id: space })).id;
  const target = (await as('post', `/workspaces/${ws}/databases`, { name: 'T', space_id: space })).id;
  const stage = await as('post', `/workspaces/${ws}/databases/${db}/fields`, { name: 'Stage', type: 'single_select', options: { choices: [{ label: 'Open' }] } });
  await as('post', `/workspaces/${ws}/databases/${db}/fields`, { name: 'Amount', type: 'number', options: { precision: 2 } });
  const relation = await as('post', `/workspaces/${ws}/relations`, { from_database_id: db, to_database_id: target, kind: 'many_to_many', from_field_name: 'Targets', to_field_name: 'Ds' });
  const record = (await as('post', `/workspaces/${ws}/databases/${db}/records`, { values: { name: 'R', amount: 1 } })).id;
  const [view] = (await t.request.get(`/api/v1/workspaces/${ws}/databases/${db}/views`).set(admin.auth)).body.data;
  const invite = (await as('post', `/workspaces/${ws}/invites`, { email: 'fuzz-invitee@example.test', role: 'member' })).id;
  const token = (await as('post', '/me/tokens', { name: 'fuzz', workspace_id: ws, scope: 'read' })).id;
  const grant = (await as('put', `/workspaces/${ws}/access`, { scope_type: 'space', scope_id: space, user_id: other.id, role: 'editor' })).id;
  const favorite = (await as('put', `/workspaces/${ws}/favorites`, { target_type: 'database', target_id: db })).id;
  return {
    admin,
    ids: {
      ws, db, space, folder, record, relation: relation.id, view: view.id, invite, token, grant, favorite,
      field: stage.id, option_id: stage.options.choices[0].id, user_id: other.id, user: other.id, link_field: relation.from_field.api_name,
      token_value: 'tsi_unknown',
    },
  };
}

/** What a path names that the fuzz world has none of (a link's target, a rule): a well-formed id of nothing. */
const randomRecordId = () => '0190c7a2-5b7e-7000-8000-00000000abcd';

/** The concrete path of a template in the fuzz world: `{id}` is whatever the segment before it names. */
function pathIn(world: FuzzWorld, template: string): string {
  const ID_OF: Record<string, string> = {
    records: 'record', spaces: 'space', folders: 'folder', relations: 'relation', invites: 'invite', tokens: 'token', access: 'grant', favorites: 'favorite', users: 'user',
  };
  const segments = template.split('/');
  return segments
    .map((segment, i) => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1];
      if (!name) return segment;
      if (name === 'id') return world.ids[ID_OF[segments[i - 1]]] ?? randomRecordId();
      if (name === 'field' && segments[i - 1] === 'links') return world.ids.link_field;
      if (name === 'token') return world.ids.token_value;
      return world.ids[name] ?? randomRecordId();
    })
    .join('/');
}

describe('schema fuzz: random and hostile bodies on every write route', function () {
  this.timeout(15 * 60_000);
  let t: TestKernel;
  let world: FuzzWorld;
  let doc: { paths: Record<string, Record<string, { operationId: string; requestBody?: { content: Record<string, { example?: unknown }> } }>> };

  before(async () => {
    t = await startTestKernel();
    world = await buildWorld(t);
    doc = (await t.request.get('/api/v1/openapi.json').expect(200)).body;
  });
  after(() => t.stop());

  it('never answers 5xx, whatever the body', async () => {
    const failures: string[] = [];
    let calls = 0;
    const statuses = new Map<number, number>();
    // Deletions last, deepest first: a space deleted early would turn every later call into a 404.
    const operations = Object.entries(doc.paths)
      .flatMap(([template, ops]) => Object.entries(ops).map(([method, op]) => ({ template, method, op })))
      .filter(({ method, op }) => method !== 'get' && !SKIPPED.has(op.operationId))
      .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete') || (a.method === 'delete' ? b.template.length - a.template.length : 0));
    for (const { template, method, op } of operations) {
      const json = op.requestBody?.content['application/json'];
      const path = pathIn(world, template.replace(/^\/api\/v1/, ''));
      // Failures are collected (the property stops at its first) so that one run names every route that fails.
      await fc
        .assert(
          fc.asyncProperty(bodyArb(json?.example), async (body) => {
            calls += 1;
            const res = await (t.request as any)[method](`/api/v1${path}`).set(world.admin.auth).set('Content-Type', 'application/json').send(JSON.stringify(body));
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status >= 500) failures.push(`${method.toUpperCase()} ${path} ${JSON.stringify(body).slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`);
            return res.status < 500;
          }),
          { numRuns: RUNS, ...SEED, endOnFailure: true },
        )
        .catch(() => undefined);
    }
    assert.ok(calls > 100, `only ${calls} calls were made`);
    // Bodies reach the handlers: some are accepted, most refused at a pointer.
    assert.ok((statuses.get(422) ?? 0) > calls / 4 && [200, 201, 204].some((s) => statuses.has(s)), JSON.stringify([...statuses]));
    assert.deepEqual(failures, []);
  });
});
