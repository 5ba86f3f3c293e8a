import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Kernel } from '../../core/kernel.ts';
import { loadConfig, type ConfigInput } from '../../core/config.ts';
import { definePlugin, type PluginManifest } from '../../core/plugin.ts';
import { Type } from '../../core/schema.ts';
import { StartupError } from '../../core/errors.ts';
import { KERNEL_VERSION } from '../../core/version.ts';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import system from '../../plugins/system/index.ts';

const plugin = (id: string, extra: Partial<PluginManifest> = {}) => definePlugin({ id, version: '1.0.0', kernel: '^1.0.0', ...extra });

/** Start-up must fail with a StartupError of `code` whose message contains every string of `names`. */
async function assertStartupError(plugins: ReturnType<typeof plugin>[], config: ConfigInput, code: string, names: string[]): Promise<StartupError> {
  const err = await Kernel.start({ config: loadConfig({ env: {}, input: { logLevel: 'silent', ...config } }), plugins, inMemory: true }).then(
    async (k) => {
      await k.stop();
      assert.fail('the kernel started');
    },
    (e: unknown) => e,
  );
  assert.ok(err instanceof StartupError, `expected a StartupError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  for (const name of names) assert.ok(err.message.includes(name), `"${err.message}" should mention ${name}`);
  return err;
}

describe('plugin loader: start-up errors name the plugins at fault', () => {
  it('a dependency cycle a -> b -> a', async () => {
    const err = await assertStartupError(
      [plugin('a', { dependsOn: { b: '^1.0.0' } }), plugin('b', { dependsOn: { a: '^1.0.0' } }), plugin('c')],
      {},
      'plugin_cycle',
      ['a -> b -> a'],
    );
    assert.deepEqual(err.pluginIds.sort(), ['a', 'b']);
  });

  it('a longer cycle names every plugin on it and none off it', async () => {
    const err = await assertStartupError(
      [plugin('x', { dependsOn: { y: '*' } }), plugin('y', { dependsOn: { z: '*' } }), plugin('z', { dependsOn: { x: '*' } }), plugin('w', { dependsOn: { x: '*' } })],
      {},
      'plugin_cycle',
      ['x -> y -> z -> x'],
    );
    assert.deepEqual(err.pluginIds.sort(), ['x', 'y', 'z']);
  });

  it('a missing dependency', async () => {
    const err = await assertStartupError([plugin('crm', { dependsOn: { mailer: '^1.0.0' } })], {}, 'plugin_dependency_missing', ['"crm"', '"mailer"', 'not installed']);
    assert.deepEqual(err.pluginIds, ['crm', 'mailer']);
  });

  it('a dependency that the config disables', async () => {
    await assertStartupError(
      [plugin('crm', { dependsOn: { mailer: '^1.0.0' } }), plugin('mailer')],
      { plugins: { mailer: { enabled: false } } },
      'plugin_dependency_missing',
      ['"crm"', '"mailer"', 'disabled'],
    );
  });

  it('a dependency whose version does not satisfy the range', async () => {
    await assertStartupError(
      [plugin('crm', { dependsOn: { mailer: '^2.0.0' } }), plugin('mailer', { version: '1.4.0' })],
      {},
      'plugin_version_mismatch',
      ['"crm"', '"mailer"', '^2.0.0', '1.4.0'],
    );
  });

  it('an optional dependency that is installed in the wrong version', async () => {
    await assertStartupError(
      [plugin('crm', { optionalDependsOn: { mailer: '>=3' } }), plugin('mailer')],
      {},
      'plugin_version_mismatch',
      ['"crm"', '"mailer"', '>=3'],
    );
  });

  it('a kernel range this kernel does not satisfy', async () => {
    await assertStartupError([plugin('future', { kernel: '^2.0.0' })], {}, 'kernel_version_mismatch', ['"future"', '^2.0.0', KERNEL_VERSION]);
  });

  it('options the plugin\'s schema rejects, with the pointer of the bad key', async () => {
    const optionsSchema = Type.Object({ limit: Type.Integer({ maximum: 10, default: 5 }) }, { additionalProperties: false });
    await assertStartupError(
      [plugin('quota', { optionsSchema })],
      { plugins: { quota: { options: { limit: 50 } } } },
      'plugin_options_invalid',
      ['"quota"', 'plugins/quota/options/limit'],
    );
    await assertStartupError(
      [plugin('quota', { optionsSchema })],
      { plugins: { quota: { options: { limt: 5 } } } },
      'plugin_options_invalid',
      ['"quota"', 'plugins/quota/options/limt'],
    );
  });

  it('an invalid manifest: id not kebab-case, version not semver, export outside its namespace', async () => {
    await assertStartupError([plugin('Bad_Id')], {}, 'plugin_invalid', ['"Bad_Id"', 'kebab-case']);
    await assertStartupError([plugin('half', { version: 'one' })], {}, 'plugin_invalid', ['"half"', '"one"']);
    await assertStartupError([plugin('leaky', { exports: ['other.svc'] })], {}, 'plugin_invalid', ['"leaky"', 'other.svc']);
  });

  it('two plugins with the same id', async () => {
    await assertStartupError([plugin('twin'), plugin('twin', { version: '2.0.0' })], {}, 'plugin_duplicate', ['"twin"']);
  });

  it('a config key that names no known plugin', async () => {
    await assertStartupError([system], { plugins: { billing: { enabled: true } } }, 'plugin_unknown', ['plugins/billing']);
  });

  it('a resolve to a module that exports no plugin', async () => {
    const file = fileURLToPath(new URL('./fixtures/not-a-plugin.ts', import.meta.url));
    await assertStartupError([system], { plugins: { ghost: { resolve: file } } }, 'plugin_invalid', ['"ghost"', file, 'definePlugin']);
  });

  it('a resolve to a path or package that does not exist', async () => {
    await assertStartupError([system], { plugins: { ghost: { resolve: './no/such/plugin.ts' } } }, 'plugin_unresolvable', ['"ghost"', './no/such/plugin.ts']);
    await assertStartupError([system], { plugins: { ghost: { resolve: '@nobody/tessera-ghost' } } }, 'plugin_unresolvable', ['"ghost"', '@nobody/tessera-ghost']);
  });

  it('a resolve whose plugin has another id than its config key, or a built-in\'s id', async () => {
    const example = fileURLToPath(new URL('../../examples/hello-plugin/index.ts', import.meta.url));
    await assertStartupError([system], { plugins: { greeter: { resolve: example } } }, 'plugin_invalid', ['plugins/greeter', '"hello"']);
    await assertStartupError([system, plugin('hello')], { plugins: { hello: { resolve: example } } }, 'plugin_duplicate', ['"hello"']);
  });
});

describe('plugin loader: order and lifecycle', () => {
  const calls: string[] = [];
  const seen: Record<string, boolean> = {};
  const tracked = (id: string, extra: Partial<PluginManifest> = {}) =>
    plugin(id, {
      ...extra,
      register: () => void calls.push(`register:${id}`),
      boot: () => void calls.push(`boot:${id}`),
      shutdown: () => void calls.push(`shutdown:${id}`),
    });
  let t: TestKernel;

  before(async () => {
    t = await startTestKernel({
      plugins: [
        tracked('app', { dependsOn: { store: '^1.0.0' } }),
        tracked('store', { dependsOn: { base: '^1.0.0' } }),
        tracked('base'),
        plugin('probe', {
          optionalDependsOn: { base: '^1.0.0', absent: '^1.0.0' },
          boot: (ctx) => void Object.assign(seen, { base: ctx.has('base'), absent: ctx.has('absent') }),
        }),
        plugin('dormant', { enabledByDefault: false, register: () => void calls.push('register:dormant') }),
      ],
    });
  });
  after(() => t.stop());

  it('registers and boots every plugin after its dependencies, whatever the list order', () => {
    assert.deepEqual(
      calls.filter((c) => /^(register|boot):(app|store|base)$/.test(c)),
      ['register:base', 'register:store', 'register:app', 'boot:base', 'boot:store', 'boot:app'],
    );
  });

  it('starts without a missing optional dependency and tells the plugin which are there', () => {
    assert.deepEqual(seen, { base: true, absent: false });
  });

  it('leaves a plugin that is off by default unregistered and reports it disabled', () => {
    assert.ok(!calls.includes('register:dormant'));
    const dormant = t.kernel.pluginStatuses().find((s) => s.id === 'dormant');
    assert.deepEqual(dormant, { id: 'dormant', version: '1.0.0', enabled: false, state: 'disabled', failure: null });
  });

  it('shuts plugins down in reverse order', async () => {
    await t.kernel.stop();
    assert.deepEqual(calls.filter((c) => c.startsWith('shutdown:')), ['shutdown:app', 'shutdown:store', 'shutdown:base']);
  });
});
