import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { defineRoute } from '../../core/routes.ts';
import { StartupError } from '../../core/errors.ts';
import { AsyncSeriesHook, HookMap, PluginHookError, SyncWaterfallHook } from '../../core/hooks.ts';
import { Type } from '../../core/schema.ts';
import system from '../../plugins/system/index.ts';

const ledgerHooks = () => ({
  /** Waterfall over an entry's label. */
  label: new SyncWaterfallHook<[string]>(['label']),
  /** Keyed by entry kind; taps run before an entry of that kind is accepted. */
  accept: new HookMap(() => new AsyncSeriesHook<[{ amount: number }]>(['entry'])),
});

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'ledger.entries': ReturnType<typeof ledgerHooks>;
  }
}

const ledger = definePlugin({
  id: 'ledger',
  version: '1.2.0',
  kernel: '^1.0.0',
  register(ctx) {
    const hooks = ctx.defineHooks('entries', ledgerHooks());
    ctx.routes([
      defineRoute({
        method: 'POST',
        path: '/ledger/entries',
        summary: 'Label an entry after every tap agreed',
        auth: 'public',
        body: Type.Object({ kind: Type.String(), amount: Type.Number() }, { additionalProperties: false }),
        responses: { 200: { description: 'The label' } },
        handler: async ({ body }) => {
          await hooks.accept.get(body.kind)?.promise({ amount: body.amount });
          return { label: hooks.label.call(`${body.kind}:${body.amount}`) };
        },
      }),
    ]);
  },
});

const fancy = definePlugin({
  id: 'fancy',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { ledger: '^1.0.0' },
  register(ctx) {
    const hooks = ctx.hooksOf('ledger.entries');
    hooks.label.tap('stars', (label) => `*${label}*`);
    hooks.accept.for('refund').tapPromise('limit', async ({ amount }) => {
      if (amount > 100) throw new Error('refund too large');
    });
  },
});

describe('plugin-defined hooks', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [system, ledger, fancy] });
  });
  after(() => t.stop());

  it('a dependant taps the hook set its dependency defines', async () => {
    const res = await t.request.post('/api/v1/ledger/entries').send({ kind: 'sale', amount: 5 }).expect(200);
    assert.deepEqual(res.body, { label: '*sale:5*' });
  });

  it('keyed hooks run only the taps of their key', async () => {
    await t.request.post('/api/v1/ledger/entries').send({ kind: 'sale', amount: 500 }).expect(200);
    await t.request.post('/api/v1/ledger/entries').send({ kind: 'refund', amount: 50 }).expect(200);
  });

  it('a throwing tap on a plugin-defined hook is attributed to the tapping plugin and the hook', async () => {
    const set = t.kernel.pluginHooks.get('ledger.entries')!.hooks as ReturnType<typeof ledgerHooks>;
    const err = await set.accept.for('refund').promise({ amount: 500 }).catch((e) => e);
    assert.ok(err instanceof PluginHookError);
    assert.equal(err.pluginId, 'fancy');
    assert.equal(err.hookName, 'ledger.entries.accept[refund]');
    const res = await t.request.post('/api/v1/ledger/entries').send({ kind: 'refund', amount: 500 }).expect(500);
    assert.equal(res.body.code, 'internal_error');
  });
});

describe('plugin-defined hooks: who may tap', () => {
  const start = (plugins: Plugin[]) =>
    startTestKernel({ plugins }).then(
      (t) => t.stop().then(() => assert.fail('the kernel started')),
      (e: unknown) => e,
    );

  it('refuses a plugin that taps without declaring the dependency, naming both', async () => {
    const sneaky = definePlugin({
      id: 'sneaky',
      version: '1.0.0',
      kernel: '^1.0.0',
      register: (ctx) => void ctx.hooksOf('ledger.entries').label.tap('x', (l) => l),
    });
    const err = await start([system, ledger, sneaky]);
    assert.ok(err instanceof StartupError);
    assert.match(err.message, /"sneaky".*"ledger\.entries".*"ledger"/);
  });

  it('refuses a hook set that no enabled plugin defines, and a set defined twice', async () => {
    const lost = definePlugin({
      id: 'lost',
      version: '1.0.0',
      kernel: '^1.0.0',
      register: (ctx) => void ctx.hooksOf('nobody.hooks' as 'ledger.entries'),
    });
    const err = await start([system, lost]);
    assert.ok(err instanceof StartupError);
    assert.match(err.message, /"lost".*"nobody\.hooks"/);

    const twice = definePlugin({
      id: 'twice',
      version: '1.0.0',
      kernel: '^1.0.0',
      register(ctx) {
        ctx.defineHooks('h', { a: new SyncWaterfallHook<[string]>(['a']) });
        ctx.defineHooks('h', { a: new SyncWaterfallHook<[string]>(['a']) });
      },
    });
    const dup = await start([system, twice]);
    assert.ok(dup instanceof StartupError);
    assert.match(dup.message, /"twice\.h".*defined twice/);
  });
});
