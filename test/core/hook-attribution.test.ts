import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { definePlugin } from '../../core/plugin.ts';
import { defineRoute } from '../../core/routes.ts';
import { forbidden } from '../../core/errors.ts';
import { createKernelHooks, HookAttribution, PluginHookError } from '../../core/hooks.ts';
import system from '../../plugins/system/index.ts';
import auth from '../../plugins/auth/index.ts';

/** A pino logger whose JSON lines land in `lines`. */
function capturingLogger() {
  const lines: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('hook attribution: a throwing tap names its plugin and hook', () => {
  it('wraps an async tap\'s error in PluginHookError with the plugin being registered', async () => {
    const at = new HookAttribution();
    const hooks = createKernelHooks(at);
    at.current = 'acl';
    hooks.auth.authorize.tapPromise('rules', async () => {
      throw new Error('rule table missing');
    });
    at.current = undefined;
    const err = await hooks.auth.authorize.promise({ principal: { kind: 'anonymous' }, action: 'GET /x' }).catch((e) => e);
    assert.ok(err instanceof PluginHookError);
    assert.equal(err.pluginId, 'acl');
    assert.equal(err.hookName, 'auth.authorize');
    assert.equal(err.message, 'Plugin "acl" failed in hook "auth.authorize": rule table missing');
  });

  it('names the key of a keyed hook and falls back to the tap name outside a plugin', () => {
    const at = new HookAttribution();
    const hooks = createKernelHooks(at);
    hooks.providers.for('mail').tap('smtp', () => {
      throw new TypeError('no transport');
    });
    assert.throws(
      () => hooks.providers.for('mail').call([]),
      (err: unknown) => err instanceof PluginHookError && err.pluginId === 'smtp' && err.hookName === 'providers[mail]',
    );
  });

  it('lets client errors (AppError) through unchanged, so a tap may answer 403', async () => {
    const at = new HookAttribution();
    const hooks = createKernelHooks(at);
    at.current = 'acl';
    hooks.auth.authorize.tapPromise('deny', async () => {
      throw forbidden('Nope.');
    });
    const err = await hooks.auth.authorize.promise({ principal: { kind: 'anonymous' }, action: 'GET /x' }).catch((e) => e);
    assert.equal(err.status, 403);
    assert.equal(err.detail, 'Nope.');
  });

  it('turns a disabled plugin\'s taps into pass-throughs', () => {
    const at = new HookAttribution();
    const hooks = createKernelHooks(at);
    at.current = 'gone';
    hooks.providers.for('mail').tap('smtp', (list) => [...list, { id: 'smtp', provider: {} }]);
    at.current = undefined;
    assert.equal(hooks.providers.for('mail').call([]).length, 1);
    at.disabled.add('gone');
    assert.deepEqual(hooks.providers.for('mail').call([]), []);
  });
});

describe('hook attribution over HTTP: 500 problem+json, no stack, the log names the plugin', () => {
  const { logger, lines } = capturingLogger();
  let t: TestKernel;

  const badAuth = definePlugin({
    id: 'bad-auth',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.hooks.auth.authenticate.tapPromise('strategy', async ({ token }) => {
        if (token === 'explode') throw new TypeError('secret internals of bad-auth');
        return undefined;
      });
    },
  });
  const badMiddleware = definePlugin({
    id: 'bad-mw',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.hooks.http.middleware.tap('explode', (entries) => [
        ...entries,
        {
          name: 'bad-mw:explode',
          middleware: async (c, next) => {
            if (c.get('x-explode')) throw new Error('secret internals of bad-mw');
            await next();
          },
        },
      ]);
    },
  });
  const crashingRoute = definePlugin({
    id: 'crash-route',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.routes([
        defineRoute({
          method: 'GET',
          path: '/crash-route/boom',
          summary: 'Always fails',
          auth: 'public',
          responses: { 200: { description: 'never' } },
          handler: () => {
            throw new Error('secret internals of a handler');
          },
        }),
      ]);
    },
  });

  before(async () => {
    t = await startTestKernel({ plugins: [system, auth, badAuth, badMiddleware, crashingRoute], logger });
  });
  after(() => t.stop());

  const errorLogs = (requestId: string) => lines.filter((l) => l.requestId === requestId && l.msg === 'unhandled error');

  function assertOpaque500(res: { status: number; headers: Record<string, string>; body: any; text: string }) {
    assert.equal(res.status, 500);
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.equal(res.body.code, 'internal_error');
    assert.equal(res.body.request_id, res.headers['x-request-id']);
    assert.doesNotMatch(res.text, /secret internals|\bat .*\.ts|stack/);
  }

  it('a throwing auth.authenticate tap', async () => {
    const res = await t.request.get('/api/v1/health').set('Authorization', 'Bearer explode');
    assertOpaque500(res);
    const [log] = errorLogs(res.body.request_id);
    assert.equal(log.plugin, 'bad-auth');
    assert.equal(log.err.type, 'PluginHookError');
    assert.match(log.err.message, /"bad-auth".*"auth\.authenticate".*secret internals of bad-auth/);
  });

  it('a throwing http.middleware', async () => {
    const res = await t.request.get('/api/v1/health').set('X-Explode', '1');
    assertOpaque500(res);
    const [log] = errorLogs(res.body.request_id);
    assert.equal(log.plugin, 'bad-mw');
    assert.match(log.err.message, /"bad-mw".*"http\.middleware".*secret internals of bad-mw/);
  });

  it('does not pin a later handler\'s error on a middleware it passed through, nor change client errors', async () => {
    const res = await t.request.get('/api/v1/crash-route/boom');
    assertOpaque500(res);
    const [log] = errorLogs(res.body.request_id);
    assert.equal(log.plugin, undefined);
    assert.equal(log.err.message, 'secret internals of a handler');
    const missing = await t.request.get('/api/v1/nope').expect(404);
    assert.equal(missing.body.code, 'not_found');
    await t.request.get('/api/v1/me').expect(401);
  });

  it('other requests keep working', async () => {
    await t.request.get('/api/v1/health').expect(200);
    await t.request.get('/api/v1/health').set('Authorization', 'Bearer not-a-known-token').expect(200);
    await t.request.get('/api/v1/me').set('Authorization', 'Bearer not-a-known-token').expect(401);
  });
});

describe('hook attribution at start-up', () => {
  it('a tap that throws while the kernel assembles the app aborts start-up naming plugin and hook', async () => {
    const broken = definePlugin({
      id: 'broken-mw',
      version: '1.0.0',
      kernel: '^1.0.0',
      register(ctx) {
        ctx.hooks.http.middleware.tap('list', () => {
          throw new Error('cannot build middleware');
        });
      },
    });
    await assert.rejects(
      startTestKernel({ plugins: [system, broken] }),
      (err: Error) => err instanceof PluginHookError && /"broken-mw".*"http\.middleware".*cannot build middleware/.test(err.message),
    );
  });
});
