import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type ConfigInput } from '../../core/config.ts';
import { planPlugins } from '../../core/loader.ts';
import { StartupError } from '../../core/errors.ts';
import auth from '../../plugins/auth/index.ts';
import tokens from '../../plugins/tokens/index.ts';
import workspaces from '../../plugins/workspaces/index.ts';
import { storageIndependent } from '../fixtures/suite-runs.ts';

const bad = (input: unknown, env: NodeJS.ProcessEnv = {}) => () => loadConfig({ env, input: input as ConfigInput });
const startupError = (pattern: RegExp) => (err: unknown) => err instanceof StartupError && err.code === 'config_invalid' && pattern.test(err.message);

describe('configuration: a bad value is a start-up error naming the key', () => {
  storageIndependent();
  it('names a top-level key', () => {
    assert.throws(bad({ port: 'x' }), startupError(/"\/port"/));
  });

  it('names a nested key', () => {
    assert.throws(bad({ http: { jsonLimit: 10 } }), startupError(/"\/http\/jsonLimit"/));
    assert.throws(bad({ onBootFailure: 'shrug' }), startupError(/"\/onBootFailure"/));
  });

  it('names an unknown key, at the top and inside a plugin entry', () => {
    assert.throws(bad({ prot: 3000 }), startupError(/"\/prot"/));
    assert.throws(bad({ plugins: { auth: { enable: false } } }), startupError(/"\/plugins\/auth\/enable"/));
  });

  it('refuses a DATABASE_URL that is not a PostgreSQL URL, saying what one looks like and never repeating it', () => {
    for (const [url, why] of [['not-a-url', /it is not a URL/], ['mysql://root:s3cret@db/app', /the scheme "mysql:" is not PostgreSQL's/]] as const) {
      assert.throws(bad({}, { DATABASE_URL: url }), (err: unknown) => startupError(/^Invalid configuration at "\/databaseUrl" \(DATABASE_URL\): .*postgres:\/\/user:password@host:5432\/database/)(err) && why.test((err as Error).message) && !(err as Error).message.includes('s3cret'));
    }
    for (const url of ['postgres://u:p@127.0.0.1:5432/db', 'postgresql:///db?host=/var/run/postgresql', 'socket:/var/run/postgresql?db=db']) {
      assert.equal(loadConfig({ env: { DATABASE_URL: url }, input: {} }).databaseUrl, url);
    }
  });

  it('names the key an environment variable fills', () => {
    assert.throws(bad({}, { PORT: 'eighty' }), startupError(/"\/port"/));
  });

  it('applies defaults and environment overrides', () => {
    const config = loadConfig({ env: { PORT: '8080', LOG_LEVEL: 'warn' }, input: {} });
    assert.equal(config.port, 8080);
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.onBootFailure, 'abort');
    assert.equal(config.events.retentionDays, 7);
    assert.deepEqual(config.plugins, {});
    assert.equal(loadConfig({ env: { EVENTS_RETENTION_DAYS: '30' }, input: {} }).events.retentionDays, 30);
    assert.throws(bad({}, { EVENTS_RETENTION_DAYS: '0' }), startupError(/"\/events\/retentionDays"/));
    assert.equal(config.databasePoolSize, 10);
    assert.equal(loadConfig({ env: { DATABASE_POOL_SIZE: '4' }, input: {} }).databasePoolSize, 4);
    assert.throws(bad({}, { DATABASE_POOL_SIZE: '1' }), startupError(/"\/databasePoolSize": Must be >= 2/));
  });
});

describe('configuration: { "$env": "NAME" }', () => {
  storageIndependent();
  it('resolves anywhere in the file, plugin options included', () => {
    const config = loadConfig({
      env: { METRICS_SECRET: 'a-metrics-token-of-32-characters', HELLO_GREETING: 'Hi' },
      input: {
        metrics: { enabled: true, token: { $env: 'METRICS_SECRET' } },
        plugins: { hello: { options: { greeting: { $env: 'HELLO_GREETING' } } } },
      } as unknown as ConfigInput,
    });
    assert.equal(config.metrics.token, 'a-metrics-token-of-32-characters');
    assert.equal(config.plugins.hello.options?.greeting, 'Hi');
  });

  it('falls back to "default" when the variable is unset', () => {
    const config = loadConfig({ env: {}, input: { host: { $env: 'BIND_HOST', default: '127.0.0.1' } } as unknown as ConfigInput });
    assert.equal(config.host, '127.0.0.1');
  });

  it('names the key when the variable is missing', () => {
    assert.throws(
      bad({ plugins: { hello: { options: { greeting: { $env: 'HELLO_GREETING' } } } } }),
      startupError(/"\/plugins\/hello\/options\/greeting".*HELLO_GREETING/),
    );
  });
});

describe('configuration file', () => {
  storageIndependent();
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-config-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads tessera.config.json and resolves plugin paths relative to the file', async () => {
    const example = fileURLToPath(new URL('../../examples/hello-plugin', import.meta.url));
    fs.writeFileSync(path.join(dir, 'tessera.config.json'), JSON.stringify({ port: 4000, plugins: { hello: { resolve: path.relative(dir, example).replace(/^(?!\.)/, './') } } }));
    const config = loadConfig({ env: {}, cwd: dir });
    assert.equal(config.port, 4000);
    assert.equal(config.baseDir, dir);
    // The example's greetings live in workspaces: it comes after the plugins workspaces stand on.
    const plan = await planPlugins([auth, tokens, workspaces], config);
    assert.deepEqual(plan.ordered.map((lp) => lp.plugin.id), ['auth', 'tokens', 'workspaces', 'hello']);
    assert.deepEqual(plan.ordered[3].options, { greeting: 'Hello' });
  });

  it('takes the path from TESSERA_CONFIG, and names a missing or broken file', () => {
    const file = path.join(dir, 'custom.json');
    fs.writeFileSync(file, '{ "port": 5000 }');
    assert.equal(loadConfig({ env: { TESSERA_CONFIG: file } }).port, 5000);
    assert.throws(() => loadConfig({ env: { TESSERA_CONFIG: path.join(dir, 'missing.json') } }), startupError(/missing\.json/));
    fs.writeFileSync(file, '{ "port": ');
    assert.throws(() => loadConfig({ env: { TESSERA_CONFIG: file } }), startupError(/custom\.json.*not valid JSON/));
  });
});

describe('configuration from the environment', () => {
  storageIndependent();
  it('coerces { "$env" } values to the type of their key', async () => {
    const { loadConfig } = await import('../../core/config.ts');
    const config = loadConfig({
      env: { APP_PORT: '8080', APP_METRICS: 'true' },
      input: { port: { $env: 'APP_PORT' } as never, metrics: { enabled: { $env: 'APP_METRICS' } as never } },
    });
    assert.equal(config.port, 8080);
    assert.equal(config.metrics.enabled, true);
  });
});
