import fs from 'node:fs';
import path from 'node:path';
import { Type, type Static, compile, toErrorDetails } from './schema.ts';
import { StartupError } from './errors.ts';
import { checkDatabaseUrl } from './preflight.ts';

const PluginEntry = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    /** A package name or a path (relative to the config file) exporting a plugin as default. */
    resolve: Type.Optional(Type.String({ minLength: 1 })),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const ConfigSchema = Type.Object(
  {
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
    host: Type.String({ default: '0.0.0.0' }),
    publicUrl: Type.Optional(Type.String({ format: 'uri' })),
    databaseUrl: Type.Optional(Type.String({ minLength: 1 })),
    /** Most connections a process opens to PostgreSQL (PGlite has one). */
    databasePoolSize: Type.Integer({ minimum: 2, maximum: 1000, default: 10 }),
    dataDir: Type.String({ default: './data' }),
    migrateOnStart: Type.Boolean({ default: true }),
    /** Processes serving the API (node:cluster); above 1 needs PostgreSQL. */
    workers: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
    logLevel: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
      { default: 'info' },
    ),
    onBootFailure: Type.Union([Type.Literal('abort'), Type.Literal('continue')], { default: 'abort' }),
    shutdownTimeoutMs: Type.Integer({ minimum: 0, default: 10000 }),
    http: Type.Object(
      {
        /** JSON body limit in bytes. */
        jsonLimit: Type.Integer({ minimum: 1024, default: 1048576 }),
        cors: Type.Object(
          {
            origins: Type.Array(Type.String(), { default: [] }),
            credentials: Type.Boolean({ default: false }),
          },
          { additionalProperties: false, default: {} },
        ),
        trustProxy: Type.Boolean({ default: false }),
        /** Milliseconds a client has to send a request's headers; past them it is answered 408 and the connection closed. */
        headersTimeoutMs: Type.Integer({ minimum: 1000, maximum: 300000, default: 10000 }),
        /** Milliseconds a request's body may stop coming before it is answered 408 and the connection closed. */
        bodyIdleTimeoutMs: Type.Integer({ minimum: 1000, maximum: 300000, default: 10000 }),
      },
      { additionalProperties: false, default: {} },
    ),
    metrics: Type.Object(
      {
        enabled: Type.Boolean({ default: false }),
        token: Type.Optional(Type.String({ minLength: 16 })),
      },
      { additionalProperties: false, default: {} },
    ),
    jobs: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        pollingIntervalSeconds: Type.Number({ minimum: 0.5, default: 2 }),
      },
      { additionalProperties: false, default: {} },
    ),
    events: Type.Object(
      {
        /** Days a dispatched event stays in the outbox; its deliveries live on in the jobs' queues. */
        retentionDays: Type.Integer({ minimum: 1, default: 7 }),
      },
      { additionalProperties: false, default: {} },
    ),
    secrets: Type.Object(
      {
        /**
         * The instance key credentials are sealed under (at least 32 characters); every instance of one database needs
         * the same. Without one, a key file is made in the data directory.
         */
        key: Type.Optional(Type.String({ minLength: 32 })),
        /** Keys sealed under before: they still open what they sealed, until `npm run rotate-secret-key`. */
        previousKeys: Type.Array(Type.String({ minLength: 32 }), { default: [] }),
      },
      { additionalProperties: false, default: {} },
    ),
    plugins: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]*$' }), PluginEntry, { default: {} }),
  },
  { additionalProperties: false },
);

export type KernelConfig = Static<typeof ConfigSchema> & {
  /** Directory the config file lives in; `resolve` paths are relative to it. */
  baseDir: string;
};
export type ConfigInput = Partial<Omit<Static<typeof ConfigSchema>, 'http' | 'metrics' | 'jobs' | 'events' | 'secrets'>> & {
  secrets?: Partial<Static<typeof ConfigSchema>['secrets']>;
  http?: Partial<Static<typeof ConfigSchema>['http']>;
  metrics?: Partial<Static<typeof ConfigSchema>['metrics']>;
  jobs?: Partial<Static<typeof ConfigSchema>['jobs']>;
  events?: Partial<Static<typeof ConfigSchema>['events']>;
};

/** Replaces `{ "$env": "NAME" }` (optionally with `"default"`) by the variable's value. */
function resolveEnvRefs(value: unknown, env: NodeJS.ProcessEnv, at: string): unknown {
  if (Array.isArray(value)) return value.map((v, i) => resolveEnvRefs(v, env, `${at}/${i}`));
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if (typeof obj.$env === 'string') {
      const v = env[obj.$env] ?? (obj.default as string | undefined);
      if (v === undefined) {
        throw new StartupError(`Config key "${at || '/'}" refers to environment variable ${obj.$env}, which is not set.`, 'config_invalid');
      }
      return v;
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, resolveEnvRefs(v, env, `${at}/${k}`)]));
  }
  return value;
}

const ENV_KEYS: Array<[string, (raw: Record<string, any>, v: string) => void]> = [
  ['PORT', (c, v) => (c.port = Number(v))],
  ['HOST', (c, v) => (c.host = v)],
  ['PUBLIC_URL', (c, v) => (c.publicUrl = v)],
  ['DATABASE_URL', (c, v) => (c.databaseUrl = v)],
  ['DATABASE_POOL_SIZE', (c, v) => (c.databasePoolSize = v)],
  ['DATA_DIR', (c, v) => (c.dataDir = v)],
  ['LOG_LEVEL', (c, v) => (c.logLevel = v)],
  ['WORKERS', (c, v) => (c.workers = v)],
  ['MIGRATE_ON_START', (c, v) => (c.migrateOnStart = v === 'true' || v === '1')],
  ['METRICS_ENABLED', (c, v) => ((c.metrics ??= {}).enabled = v === 'true' || v === '1')],
  ['METRICS_TOKEN', (c, v) => ((c.metrics ??= {}).token = v)],
  ['EVENTS_RETENTION_DAYS', (c, v) => ((c.events ??= {}).retentionDays = v)],
  ['TESSERA_SECRET_KEY', (c, v) => ((c.secrets ??= {}).key = v)],
  ['TESSERA_PREVIOUS_SECRET_KEYS', (c, v) => ((c.secrets ??= {}).previousKeys = v.split(',').map((k) => k.trim()).filter(Boolean))],
  // The auth plugin validates them (and creates the admin) at start; here they only find their way into its options.
  ['ADMIN_EMAIL', (c, v) => (authAdminOf(c).email = v)],
  ['ADMIN_PASSWORD', (c, v) => (authAdminOf(c).password = v)],
];

function authAdminOf(raw: Record<string, any>): Record<string, string> {
  const auth = ((raw.plugins ??= {}).auth ??= {});
  return ((auth.options ??= {}).admin ??= {});
}

export interface LoadConfigOptions {
  /** Explicit config (tests); skips the file. */
  input?: ConfigInput;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export function loadConfig(opts: LoadConfigOptions = {}): KernelConfig {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  let raw: Record<string, any> = {};
  let baseDir = cwd;
  if (opts.input) {
    raw = structuredClone(opts.input) as Record<string, any>;
  } else {
    const file = path.resolve(cwd, env.TESSERA_CONFIG ?? 'tessera.config.json');
    if (fs.existsSync(file)) {
      try {
        raw = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (err) {
        throw new StartupError(`Config file ${file} is not valid JSON: ${(err as Error).message}`, 'config_invalid');
      }
      baseDir = path.dirname(file);
    } else if (env.TESSERA_CONFIG) {
      throw new StartupError(`Config file ${file} (TESSERA_CONFIG) does not exist.`, 'config_invalid');
    }
  }
  raw = resolveEnvRefs(raw, env, '') as Record<string, any>;
  for (const [name, apply] of ENV_KEYS) {
    const v = env[name];
    if (v !== undefined && v !== '') apply(raw, v);
  }
  // Environment values are strings; `{ "$env": "PORT" }` must still satisfy an integer key.
  const validate = compile(ConfigSchema, { coerce: true });
  if (!validate(raw)) {
    const first = toErrorDetails(validate.errors)[0];
    throw new StartupError(`Invalid configuration at "${first.pointer || '/'}": ${first.detail}`, 'config_invalid');
  }
  const config = raw as Static<typeof ConfigSchema>;
  // Credentials with any origin would let every site act with the user's cookies and tokens.
  if (config.http.cors.credentials && config.http.cors.origins.includes('*')) {
    throw new StartupError('Invalid configuration at "/http/cors/credentials": credentials cannot be allowed for any origin ("*"); list the origins.', 'config_invalid');
  }
  checkDatabaseUrl(config.databaseUrl);
  return { ...config, baseDir };
}
