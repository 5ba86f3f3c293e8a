import assert from 'node:assert/strict';
import { KernelContainer } from '../../core/container.ts';
import { StartupError } from '../../core/errors.ts';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { definePlugin } from '../../core/plugin.ts';
import type { Resolve } from '../../core/container.ts';
import system from '../../plugins/system/index.ts';

function assertNames(fn: () => unknown, code: string, names: string[]) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StartupError, String(err));
    assert.equal(err.code, code, err.message);
    for (const n of names) assert.ok(err.message.includes(`"${n}"`), `"${err.message}" should name ${n}`);
    assert.deepEqual([...err.pluginIds].sort(), [...names].filter((n) => !n.includes('.')).sort());
    return true;
  });
}

describe('container: keys are owned', () => {
  it('refuses a key registered twice, naming both plugins', () => {
    const c = new KernelContainer();
    c.provide('billing', 'billing.plans', () => 1, true);
    assertNames(() => c.provide('payments', 'billing.plans', () => 2, true), 'duplicate_service', ['billing', 'payments', 'billing.plans']);
  });

  it('refuses a plugin key that clashes with a kernel key', () => {
    const c = new KernelContainer();
    c.provideKernel('db', {});
    assert.throws(() => c.provide('db', 'db', () => 1, false), /"db".*registered by both "kernel" and "db"/);
  });

  it('refuses a key outside the plugin\'s namespace', () => {
    const c = new KernelContainer();
    assertNames(() => c.provide('crm', 'contacts', () => 1, false), 'unnamespaced_service', ['crm']);
  });
});

describe('container: cross-plugin resolution only through exports and declared dependencies', () => {
  const resolvers: Record<string, Resolve> = {};
  const capture = (id: string, dependsOn?: Record<string, string>) =>
    definePlugin({ id, version: '1.0.0', kernel: '^1.0.0', dependsOn, register: (ctx) => void (resolvers[id] = ctx.resolve) });
  let t: TestKernel;

  before(async () => {
    const vault = definePlugin({
      id: 'vault',
      version: '1.0.0',
      kernel: '^1.0.0',
      exports: ['vault.public'],
      register(ctx) {
        ctx.provide('secret', () => ({ key: 's3cr3t' }));
        // Own non-exported services stay resolvable inside the plugin.
        ctx.provide('public', (r) => ({ hint: `${(r('vault.secret') as { key: string }).key.length} chars` }));
        resolvers.vault = ctx.resolve;
      },
    });
    t = await startTestKernel({ plugins: [system, vault, capture('client', { vault: '^1.0.0' }), capture('stranger')] });
  });
  after(() => t.stop());

  it('resolves an exported service for a declared dependant', () => {
    assert.deepEqual(resolvers.client('vault.public'), { hint: '6 chars' });
  });

  it('lets a plugin resolve its own services, exported or not, and kernel services', () => {
    assert.deepEqual(resolvers.vault('vault.secret'), { key: 's3cr3t' });
    assert.equal(resolvers.stranger('db'), t.db);
  });

  it('refuses another plugin\'s service it does not export, naming both plugins', () => {
    assertNames(() => resolvers.client('vault.secret'), 'service_not_exported', ['client', 'vault', 'vault.secret']);
  });

  it('refuses an exported service to a plugin that did not declare the dependency, naming both', () => {
    assertNames(() => resolvers.stranger('vault.public'), 'undeclared_dependency', ['stranger', 'vault', 'vault.public']);
  });

  it('refuses an unknown key, naming the plugin', () => {
    assertNames(() => resolvers.client('vault.nothing'), 'unknown_service', ['client', 'vault.nothing']);
  });
});
