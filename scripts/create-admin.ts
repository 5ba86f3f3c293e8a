import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { pino } from 'pino';
import { loadConfig, type KernelConfig } from '../core/config.ts';
import { Kernel } from '../core/kernel.ts';
import { AppError } from '../core/errors.ts';
import { Type, assertValid } from '../core/schema.ts';
import { builtinPlugins } from '../plugins/index.ts';
import { Email, Name, Password } from '../plugins/auth/schemas.ts';
import { runCli } from './cli.ts';

const AdminInput = Type.Object(
  { email: Email, name: Name, password: Type.Optional(Password) },
  { additionalProperties: false },
);

export interface CreateAdminInput {
  email: string;
  name?: string;
  password?: string;
}

export interface CreateAdminResult {
  id: string;
  email: string;
  created: boolean;
}

/**
 * Makes `email` an instance admin on the configured database: creates the account, or promotes
 * the existing one (its password is left alone). Runs migrations; starts no jobs and no HTTP server.
 */
export async function createAdmin(
  input: CreateAdminInput,
  opts: { config?: KernelConfig; schema?: string } = {},
): Promise<CreateAdminResult> {
  const candidate = { ...input, name: input.name ?? input.email.split('@')[0] };
  assertValid(AdminInput, candidate);
  const loaded = opts.config ?? loadConfig();
  const config: KernelConfig = { ...loaded, migrateOnStart: true, jobs: { ...loaded.jobs, enabled: false } };
  // Logs go to stderr, so stdout carries only the user id.
  const logger = pino({ level: config.logLevel }, pino.destination(2));
  const kernel = await Kernel.start({ config, plugins: builtinPlugins, schema: opts.schema, logger });
  try {
    const { user, created } = await kernel.container.resolverFor('auth')('auth.users').ensureInstanceAdmin(candidate);
    return { id: user.id, email: user.email, created };
  } finally {
    await kernel.stop();
  }
}

async function main(argv: string[]): Promise<void> {
  const program = new Command('create-admin')
    .description('Create an instance admin, or promote the existing user with this email. Prints the user id.')
    .requiredOption('--email <email>', 'email of the admin')
    .option('--name <name>', 'display name (default: the part of the email before @)')
    .option('--password <password>', 'password for a new account (min 8 characters); prefer the TESSERA_ADMIN_PASSWORD variable, which stays out of shell history')
    // Commander echoes a mistyped `--pasword=secret` whole; drop every inline value from its errors.
    .configureOutput({ outputError: (message, write) => write(message.replace(/(--?[\w-]+)=[^'\s]*/g, '$1=[redacted]')) })
    .parse(argv);
  const opts = program.opts<{ email: string; name?: string; password?: string }>();
  const password = opts.password ?? (process.env.TESSERA_ADMIN_PASSWORD || undefined);
  try {
    const result = await createAdmin({ email: opts.email, name: opts.name, password });
    process.stderr.write(`${result.created ? 'Created' : 'Promoted'} instance admin ${result.email}${result.created ? '' : ' (password unchanged)'}\n`);
    process.stdout.write(`${result.id}\n`);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // Validation details name the field and the rule, never the value, so a password cannot leak here.
    const lines = err.errors?.map((e) => `--${e.pointer.slice(1)}: ${e.detail}`) ?? [err.detail];
    process.stderr.write(lines.map((l) => `create-admin: ${l}\n`).join(''));
    process.exitCode = 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runCli(() => main(process.argv));
