import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { loadConfig, type KernelConfig } from '../core/config.ts';
import { inTransaction } from '../core/db.ts';
import { Kernel } from '../core/kernel.ts';
import { KEY_FILE, newKeyText, readKeyFile, writeKeyFile } from '../core/secret-box.ts';
import { builtinPlugins } from '../plugins/index.ts';
import type { Plugin } from '../core/plugin.ts';
import { runCli } from './cli.ts';

export interface RotationResult {
  keyId: string;
  /** Values sealed again, by what holds them (`integrations.connections`, …). */
  resealed: Record<string, number>;
}

/**
 * Seals every stored secret again under the current key, in one transaction: all of them move, or none. With a key
 * configured (`TESSERA_SECRET_KEY`, the old ones in `TESSERA_PREVIOUS_SECRET_KEYS`) the configured key is current. With
 * the data directory's key file, a new key is made first and written ahead of the old one (so a rotation cut short still
 * opens everything); once the transaction has committed the old key leaves the file.
 */
export async function rotateSecretKey(opts: { config?: KernelConfig; schema?: string; plugins?: Plugin[] } = {}): Promise<RotationResult> {
  const loaded = opts.config ?? loadConfig();
  const config: KernelConfig = { ...loaded, migrateOnStart: true, jobs: { ...loaded.jobs, enabled: false } };
  const logger = pino({ level: config.logLevel }, pino.destination(2));
  const dataDir = path.resolve(config.baseDir, config.dataDir);
  const fileMode = config.secrets.key === undefined;
  const kernel = await Kernel.start({ config, plugins: opts.plugins ?? builtinPlugins, schema: opts.schema, logger });
  try {
    const keyring = kernel.container.resolverFor('kernel')('secrets');
    let newKey: string | undefined;
    if (fileMode) {
      newKey = newKeyText();
      writeKeyFile(dataDir, [newKey, ...readKeyFile(dataDir)]);
      keyring.reload();
    }
    const box = keyring.get();
    const resealed: Record<string, number> = {};
    await inTransaction(kernel.db, (trx) => kernel.hooks.secrets.rotate.promise({ trx, box, resealed }));
    if (newKey) {
      writeKeyFile(dataDir, [newKey]);
      keyring.reload();
    }
    return { keyId: box.currentKeyId, resealed };
  } finally {
    await kernel.stop();
  }
}

async function main(): Promise<void> {
  const result = await rotateSecretKey();
  const counts = Object.entries(result.resealed).map(([what, n]) => `${n} in ${what}`);
  process.stderr.write(`Sealed again under key ${result.keyId}: ${counts.length > 0 ? counts.join(', ') : 'nothing was stored'}.\n`);
  const config = loadConfig();
  if (config.secrets.key !== undefined && readKeyFile(path.resolve(config.baseDir, config.dataDir)).length > 0) {
    process.stderr.write(`The key file ${path.join(config.dataDir, KEY_FILE)} opens nothing any more and may be deleted.\n`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runCli(main);
