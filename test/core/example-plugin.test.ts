import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { definePlugin } from '../../core/plugin.ts';
import system from '../../plugins/system/index.ts';
import auth from '../../plugins/auth/index.ts';
import { signUp, type SignedUpUser } from '../helpers.ts';

const EXAMPLE_DIR = fileURLToPath(new URL('../../examples/hello-plugin', import.meta.url));
/** `resolve` paths are relative to the config's directory: the working directory for a config given inline. */
const relative = (p: string) => `.${path.sep}${path.relative(process.cwd(), p)}`;

/** An in-process plugin that depends on the resolved one and taps the hook set it defines. */
const shout = definePlugin({
  id: 'shout',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { hello: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('hello.greetings').message.tap('upper', (message, { name }) => (name === 'Bob' ? message.toUpperCase() : message));
  },
});

describe('example plugin (examples/hello-plugin) loaded through config resolve', () => {
  let t: TestKernel;
  let ada: SignedUpUser;
  before(async () => {
    t = await startTestKernel({
      plugins: [system, auth, shout],
      config: { plugins: { hello: { resolve: relative(EXAMPLE_DIR), options: { greeting: 'Howdy' } } } },
    });
    ada = await signUp(t);
  });
  after(() => t.stop());

  it('stores a greeting built from its options and returns it with 201', async () => {
    const res = await t.request.post('/api/v1/hello/greetings').set(ada.auth).send({ name: 'Ada' }).expect(201);
    assert.equal(res.body.name, 'Ada');
    assert.equal(res.body.message, 'Howdy, Ada!');
    assert.match(res.body.id, /^[0-9a-f-]{36}$/);
    const row = await t.db('hello_greetings').where({ id: res.body.id }).first();
    assert.equal(row.user_id, ada.id);
    assert.equal(row.message, 'Howdy, Ada!');
    const event = await t.db('kernel_events').where({ name: 'hello.greeting_created' }).orderBy('id', 'desc').first();
    assert.equal(event.payload.id, res.body.id);
    assert.equal(event.actor_id, ada.id);
  });

  it('lets a dependant plugin change the message through the hook set it defines', async () => {
    const res = await t.request.post('/api/v1/hello/greetings').set(ada.auth).send({ name: 'Bob' }).expect(201);
    assert.equal(res.body.message, 'HOWDY, BOB!');
  });

  it('lists only the caller\'s greetings, newest first, in keyset pages', async () => {
    const bea = await signUp(t);
    for (const name of ['One', 'Two', 'Three']) await t.request.post('/api/v1/hello/greetings').set(bea.auth).send({ name }).expect(201);
    const first = await t.request.get('/api/v1/hello/greetings?limit=2').set(bea.auth).expect(200);
    assert.deepEqual(first.body.data.map((g: { name: string }) => g.name), ['Three', 'Two']);
    assert.equal(typeof first.body.next_cursor, 'string');
    const second = await t.request.get('/api/v1/hello/greetings').query({ limit: 2, cursor: first.body.next_cursor }).set(bea.auth).expect(200);
    assert.deepEqual(second.body.data.map((g: { name: string }) => g.name), ['One']);
    assert.equal(second.body.next_cursor, null);
    const mine = await t.request.get('/api/v1/hello/greetings').set(ada.auth).expect(200);
    assert.deepEqual(mine.body.data.map((g: { name: string }) => g.name).sort(), ['Ada', 'Bob']);
  });

  it('validates like every route: 401 without a credential, 422 on unknown properties and bad cursors', async () => {
    await t.request.get('/api/v1/hello/greetings').expect(401);
    const unknown = await t.request.post('/api/v1/hello/greetings').set(ada.auth).send({ name: 'Eve', admin: true }).expect(422);
    assert.equal(unknown.body.errors[0].pointer, '/admin');
    const before = await t.db('hello_greetings').count({ n: '*' }).first();
    await t.request.post('/api/v1/hello/greetings').set(ada.auth).send({ name: '' }).expect(422);
    assert.deepEqual(await t.db('hello_greetings').count({ n: '*' }).first(), before);
    const bad = await t.request.get('/api/v1/hello/greetings?cursor=nonsense').set(ada.auth).expect(422);
    assert.equal(bad.body.errors[0].pointer, '/query/cursor');
  });

  it('taps http.middleware: every response carries X-Hello, errors included', async () => {
    const health = await t.request.get('/api/v1/health').expect(200);
    assert.equal(health.headers['x-hello'], 'Howdy');
    const missing = await t.request.get('/api/v1/nope').expect(404);
    assert.equal(missing.headers['x-hello'], 'Howdy');
  });

  it('ran its migration in a migration table of its own and documents its routes', async () => {
    const applied = await t.db('knex_migrations_hello').pluck('name');
    assert.deepEqual(applied, ['20261201000000_hello_greetings']);
    const doc = await t.request.get('/api/v1/openapi.json').expect(200);
    const op = doc.body.paths['/api/v1/hello/greetings'];
    assert.deepEqual(Object.keys(op).sort(), ['get', 'post']);
    assert.deepEqual(op.post.tags, ['hello']);
  });
});

describe('example plugin defaults and options', () => {
  it('greets with "Hello" when no options are given, loaded by the path of its entry module', async () => {
    const t = await startTestKernel({
      plugins: [system, auth],
      config: { plugins: { hello: { resolve: path.join(EXAMPLE_DIR, 'index.ts') } } },
    });
    try {
      const u = await signUp(t);
      const res = await t.request.post('/api/v1/hello/greetings').set(u.auth).send({ name: 'Ada' }).expect(201);
      assert.equal(res.body.message, 'Hello, Ada!');
      assert.equal(res.headers['x-hello'], 'Hello');
    } finally {
      await t.stop();
    }
  });

  it('refuses to start with options its schema rejects, naming the plugin and the key', async () => {
    await assert.rejects(
      startTestKernel({ plugins: [system, auth], config: { plugins: { hello: { resolve: EXAMPLE_DIR, options: { greeting: 'Grüß Gott' } } } } }),
      (err: Error) => err.name === 'StartupError' && err.message.includes('"hello"') && err.message.includes('plugins/hello/options/greeting'),
    );
  });
});
