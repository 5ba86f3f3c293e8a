import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../core/testing.ts';
import { definePlugin } from '../../core/plugin.ts';
import system from '../../plugins/system/index.ts';
import auth from '../../plugins/auth/index.ts';
import workspaces from '../../plugins/workspaces/index.ts';
import { defineRoute } from '../../core/routes.ts';
import { Type } from '../../core/schema.ts';

const EXAMPLE_DIR = fileURLToPath(new URL('../../examples/hello-plugin', import.meta.url));
/** `resolve` paths are relative to the config's directory: the working directory for a config given inline. */
const relative = (p: string) => `.${path.sep}${path.relative(process.cwd(), p)}`;

/**
 * An in-process plugin that depends on the resolved one: it taps the hook set hello defines and calls the service it
 * exports, through nothing but what hello declares.
 */
const shout = definePlugin({
  id: 'shout',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { hello: '^2.0.0' },
  register(ctx) {
    ctx.hooksOf('hello.greetings').message.tap('upper', (message, { name }) => (name === 'Bob' ? message.toUpperCase() : message));
    ctx.routes([
      defineRoute({
        method: 'GET',
        path: '/workspaces/{ws}/shout/count',
        summary: 'How many greetings the caller has left here',
        auth: 'user',
        access: { role: 'member' },
        params: Type.Object({ ws: Type.String({ format: 'uuid' }) }),
        responses: { 200: { description: 'The count', schema: Type.Object({ greetings: Type.Integer() }) } },
        handler: async ({ user, params, resolve }) => ({ greetings: await resolve('hello.greetings').countBy(params.ws, user.id) }),
      }),
    ]);
  },
});

describe('example plugin (examples/hello-plugin) loaded through config resolve', () => {
  let t: TestKernel;
  let ada: SignedUpUser;
  let ws: string;
  const greetings = () => `/api/v1/workspaces/${ws}/hello/greetings`;
  before(async () => {
    t = await startTestKernel({
      plugins: [system, auth, workspaces, shout],
      config: { plugins: { hello: { resolve: relative(EXAMPLE_DIR), options: { greeting: 'Howdy' } } } },
    });
    ada = await signUp(t);
    ws = (await createWorkspace(t, ada)).id;
  });
  after(() => t.stop());

  it('stores a greeting built from its options and returns it with 201', async () => {
    const res = await t.request.post(greetings()).set(ada.auth).send({ name: 'Ada' }).expect(201);
    assert.equal(res.body.name, 'Ada');
    assert.equal(res.body.message, 'Howdy, Ada!');
    const row = await t.db('hello_greetings').where({ id: res.body.id }).first();
    assert.equal(row.created_by, ada.id);
    assert.equal(row.workspace_id, ws);
    const event = await t.db('kernel_events').where({ name: 'hello.greeting_created' }).orderBy('id', 'desc').first();
    assert.deepEqual([event.payload.id, event.workspace_id, event.actor_id], [res.body.id, ws, ada.id]);
  });

  it('lets a dependant plugin change the message through its hook set and read through its exported service', async () => {
    const res = await t.request.post(greetings()).set(ada.auth).send({ name: 'Bob' }).expect(201);
    assert.equal(res.body.message, 'HOWDY, BOB!');
    const count = await t.request.get(`/api/v1/workspaces/${ws}/shout/count`).set(ada.auth).expect(200);
    assert.equal(count.body.greetings, 2);
  });

  it('lists the workspace\'s greetings, newest first, in keyset pages, and no other workspace\'s', async () => {
    const bea = await signUp(t);
    const other = (await createWorkspace(t, bea)).id;
    for (const name of ['One', 'Two', 'Three']) await t.request.post(`/api/v1/workspaces/${other}/hello/greetings`).set(bea.auth).send({ name }).expect(201);
    const first = await t.request.get(`/api/v1/workspaces/${other}/hello/greetings?limit=2`).set(bea.auth).expect(200);
    assert.deepEqual(first.body.data.map((g: { name: string }) => g.name), ['Three', 'Two']);
    const second = await t.request.get(`/api/v1/workspaces/${other}/hello/greetings`).query({ limit: 2, cursor: first.body.next_cursor }).set(bea.auth).expect(200);
    assert.deepEqual(second.body.data.map((g: { name: string }) => g.name), ['One']);
    assert.equal(second.body.next_cursor, null);
    const mine = await t.request.get(greetings()).set(ada.auth).expect(200);
    assert.deepEqual(mine.body.data.map((g: { name: string }) => g.name).sort(), ['Ada', 'Bob']);
  });

  it('validates like every route: 401 without a credential, 422 on unknown properties and bad cursors', async () => {
    await t.request.get(greetings()).expect(401);
    const unknown = await t.request.post(greetings()).set(ada.auth).send({ name: 'Eve', admin: true }).expect(422);
    assert.equal(unknown.body.errors[0].pointer, '/admin');
    const bad = await t.request.get(`${greetings()}?cursor=nonsense`).set(ada.auth).expect(422);
    assert.equal(bad.body.errors[0].pointer, '/query/cursor');
  });

  it('taps http.middleware: every response carries X-Hello, errors included', async () => {
    const health = await t.request.get('/api/v1/health').expect(200);
    assert.equal(health.headers['x-hello'], 'Howdy');
    const missing = await t.request.get('/api/v1/nope').expect(404);
    assert.equal(missing.headers['x-hello'], 'Howdy');
  });

  it('ran its migration in a migration table of its own and documents its routes with its error codes', async () => {
    const applied = await t.db('knex_migrations_hello').pluck('name');
    assert.deepEqual(applied, ['20261201000000_hello_greetings']);
    const doc = await t.request.get('/api/v1/openapi.json').expect(200);
    const op = doc.body.paths['/api/v1/workspaces/{ws}/hello/greetings'];
    assert.deepEqual(Object.keys(op).sort(), ['get', 'post']);
    assert.deepEqual(op.post.tags, ['hello']);
    assert.ok(JSON.stringify(op.post.responses).includes('already_greeted'), 'the 409 it can answer is documented');
  });
});

describe('example plugin defaults and options', () => {
  it('greets with "Hello" when no options are given, loaded by the path of its entry module', async () => {
    const t = await startTestKernel({
      plugins: [system, auth, workspaces],
      config: { plugins: { hello: { resolve: path.join(EXAMPLE_DIR, 'index.ts') } } },
    });
    try {
      const u = await signUp(t);
      const { id } = await createWorkspace(t, u);
      const res = await t.request.post(`/api/v1/workspaces/${id}/hello/greetings`).set(u.auth).send({ name: 'Ada' }).expect(201);
      assert.equal(res.body.message, 'Hello, Ada!');
      assert.equal(res.headers['x-hello'], 'Hello');
    } finally {
      await t.stop();
    }
  });

  it('refuses to start with options its schema rejects, naming the plugin and the key', async () => {
    await assert.rejects(
      startTestKernel({ plugins: [system, auth, workspaces], config: { plugins: { hello: { resolve: EXAMPLE_DIR, options: { greeting: 'Grüß Gott' } } } } }),
      (err: Error) => err.name === 'StartupError' && err.message.includes('"hello"') && err.message.includes('plugins/hello/options/greeting'),
    );
  });
});
