import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../core/testing.ts';
import { definePlugin, type Plugin, type PluginManifest } from '../../core/plugin.ts';
import { defineRoute } from '../../core/routes.ts';
import { StartupError } from '../../core/errors.ts';
import system from '../../plugins/system/index.ts';
import auth from '../../plugins/auth/index.ts';
import admin from '../../plugins/admin/index.ts';

/** Calls of taps, to tell whether a disabled plugin's taps still run. */
const tapCalls: string[] = [];

/** A plugin with one public route `GET /<id>/ping` and an `X-<id>` header on every response. */
function pingPlugin(id: string, extra: Partial<PluginManifest> = {}): Plugin {
  return definePlugin({
    id,
    version: '1.0.0',
    kernel: '^1.0.0',
    ...extra,
    register(ctx) {
      ctx.routes([
        defineRoute({
          method: 'GET',
          path: `/${id}/ping`,
          summary: 'Ping',
          auth: 'public',
          responses: { 200: { description: 'pong' } },
          handler: () => ({ pong: id }),
        }),
      ]);
      ctx.hooks.http.middleware.tap('header', (entries) => [
        ...entries,
        { name: `${id}:header`, middleware: async (c, next) => (c.set(`X-${id}`, 'yes'), next()) },
      ]);
      ctx.hooks.auth.authorize.tapPromise('observe', async () => void tapCalls.push(id));
      extra.register?.(ctx);
    },
  });
}

const flaky = () =>
  pingPlugin('flaky', {
    boot: () => {
      throw new Error('disk on fire');
    },
  });
const dependant = () => pingPlugin('flaky-fan', { dependsOn: { flaky: '^1.0.0' } });
const transitive = () => pingPlugin('flaky-fan-club', { dependsOn: { 'flaky-fan': '^1.0.0' } });
const optionalFan = () => pingPlugin('flaky-curious', { optionalDependsOn: { flaky: '^1.0.0' } });
const bystander = () => pingPlugin('bystander');
const miswired = () =>
  pingPlugin('miswired', {
    register: () => {
      throw new Error('wiring is wrong');
    },
  });
const badMigration = () => pingPlugin('bad-schema', { migrations: fileURLToPath(new URL('./fixtures/failing-migrations', import.meta.url)) });

describe('onBootFailure: "continue" disables a failing plugin and its dependants', () => {
  const lines: Array<Record<string, any>> = [];
  const logger = pino(
    { level: 'error' },
    new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    }),
  );
  let t: TestKernel;
  let root: SignedUpUser;

  before(async () => {
    t = await startTestKernel({
      plugins: [system, auth, admin, flaky(), dependant(), transitive(), optionalFan(), bystander(), miswired(), badMigration()],
      config: { onBootFailure: 'continue' },
      logger,
    });
    root = await signUp(t);
  });
  after(() => t.stop());

  it('answers 404 on the routes of the failed plugin and of its dependants', async () => {
    for (const id of ['flaky', 'flaky-fan', 'flaky-fan-club', 'miswired', 'bad-schema']) {
      const res = await t.request.get(`/api/v1/${id}/ping`).expect(404);
      assert.equal(res.body.code, 'not_found');
    }
  });

  it('keeps the others working, an optional dependant included', async () => {
    const res = await t.request.get('/api/v1/bystander/ping').expect(200);
    assert.deepEqual(res.body, { pong: 'bystander' });
    await t.request.get('/api/v1/flaky-curious/ping').expect(200);
    await t.request.get('/api/v1/health').expect(200);
    await t.request.get('/api/v1/me').set(root.auth).expect(200);
  });

  it('stops running the hook taps of disabled plugins', async () => {
    tapCalls.length = 0;
    const res = await t.request.get('/api/v1/bystander/ping').expect(200);
    assert.equal(res.headers['x-bystander'], 'yes');
    assert.equal(res.headers['x-flaky-curious'], 'yes');
    for (const id of ['flaky', 'flaky-fan', 'flaky-fan-club', 'miswired', 'bad-schema']) assert.equal(res.headers[`x-${id}`], undefined, id);
    assert.deepEqual(tapCalls.sort(), ['bystander', 'flaky-curious']);
  });

  it('leaves the failed plugins out of the OpenAPI document', async () => {
    const doc = await t.request.get('/api/v1/openapi.json').expect(200);
    assert.ok(doc.body.paths['/api/v1/bystander/ping']);
    assert.equal(doc.body.paths['/api/v1/flaky/ping'], undefined);
    assert.equal(doc.body.paths['/api/v1/flaky-fan/ping'], undefined);
  });

  it('reports every plugin in GET /admin/plugins, with the failure and who caused it', async () => {
    const res = await t.request.get('/api/v1/admin/plugins').set(root.auth).expect(200);
    const byId = Object.fromEntries(res.body.data.map((p: { id: string }) => [p.id, p]));
    assert.deepEqual(byId.flaky, { id: 'flaky', version: '1.0.0', enabled: true, state: 'failed', failure: { phase: 'boot', message: 'disk on fire' } });
    assert.equal(byId['flaky-fan'].state, 'failed');
    assert.equal(byId['flaky-fan'].failure.phase, 'dependency');
    assert.match(byId['flaky-fan'].failure.message, /"flaky"/);
    assert.equal(byId['flaky-fan-club'].state, 'failed');
    assert.match(byId['flaky-fan-club'].failure.message, /"flaky"/);
    assert.deepEqual(byId.miswired.failure, { phase: 'register', message: 'wiring is wrong' });
    assert.equal(byId['bad-schema'].failure.phase, 'migrate');
    assert.match(byId['bad-schema'].failure.message, /no_such_table/);
    for (const id of ['bystander', 'flaky-curious', 'system', 'auth', 'admin']) assert.equal(byId[id].state, 'active', id);
    assert.equal(byId.bystander.failure, null);
  });

  it('logs each failure with the plugin, the phase and the dependants it took down', () => {
    const boot = lines.find((l) => l.plugin === 'flaky');
    assert.ok(boot, 'no log line for "flaky"');
    assert.equal(boot.phase, 'boot');
    assert.deepEqual(boot.disabled.sort(), ['flaky-fan', 'flaky-fan-club']);
    assert.match(boot.err.message, /disk on fire/);
    assert.ok(lines.some((l) => l.plugin === 'miswired' && l.phase === 'register'));
  });
});

describe('onBootFailure: "abort" (the default)', () => {
  it('refuses to start when a plugin\'s boot throws, naming the plugin', async () => {
    const err = await startTestKernel({ plugins: [system, flaky(), dependant(), bystander()] }).then(
      (t) => t.stop().then(() => assert.fail('the kernel started')),
      (e: unknown) => e,
    );
    assert.ok(err instanceof StartupError);
    assert.deepEqual(err.pluginIds, ['flaky']);
    assert.match(err.message, /"flaky".*boot.*disk on fire/);
  });
});

describe('a plugin that fails to boot runs no job workers', () => {
  it('leaves its jobs queued and unhandled while other plugins work theirs', async () => {
    const handled: string[] = [];
    const withJob = (id: string, failBoot: boolean) =>
      definePlugin({
        id,
        version: '1.0.0',
        kernel: '^1.0.0',
        register(ctx) {
          ctx.job({ name: 'work', handler: async () => void handled.push(id) });
        },
        async boot(ctx) {
          await ctx.sendJob('work', {});
          if (failBoot) throw new Error('boot failed after queueing work');
        },
      });
    const t = await startTestKernel({
      plugins: [withJob('broken-worker', true), withJob('healthy-worker', false)],
      config: { onBootFailure: 'continue' },
    });
    try {
      for (let i = 0; i < 100 && !handled.includes('healthy-worker'); i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(handled, ['healthy-worker']);
      assert.equal(t.kernel.statuses.get('broken-worker')?.state, 'failed');
    } finally {
      await t.stop();
    }
  });
});
