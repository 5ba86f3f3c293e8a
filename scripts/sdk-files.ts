import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { loadConfig } from '../core/config.ts';
import { Kernel } from '../core/kernel.ts';
import { builtinPlugins } from '../plugins/index.ts';

/**
 * What `npm run sdk` makes: the OpenAPI document a kernel with every built-in plugin serves, and the types
 * openapi-typescript makes of it. Kept apart from scripts/sdk.ts so that test/sdk/sdk.test.ts runs the same steps.
 */

export const SDK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'sdk');

/** The generated files, by path inside sdk/. The rest of sdk/ (src/index.ts, README.md) is written by hand. */
export const GENERATED = ['openapi.json', 'src/schema.ts'] as const;
export type GeneratedFile = (typeof GENERATED)[number];
export type SdkFiles = Record<GeneratedFile, string>;

const SCHEMA_HEADER = `${COMMENT_HEADER.trimEnd()}\n// Made by \`npm run sdk\` (scripts/sdk.ts) from sdk/openapi.json.\n\n`;

/**
 * The document a kernel with the built-in plugins serves at `GET /api/v1/openapi.json`, taken from the route itself
 * (no port is opened): in-memory PGlite, default configuration, nothing read from the environment or a config file,
 * so that the document is the same on every machine (no `PUBLIC_URL` in `servers`). blobs-s3, the one built-in that
 * is off by default, serves no routes. Takes ~12 s, mostly the new cluster and its migrations.
 */
export async function servedDocument(): Promise<unknown> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-sdk-'));
  try {
    const config = loadConfig({ env: {}, input: { logLevel: 'silent', dataDir } });
    const kernel = await Kernel.start({ config, plugins: builtinPlugins, inMemory: true });
    try {
      const route = kernel.routes.find((r) => r.def.operationId === 'openapi.get');
      if (!route) throw new Error('the kernel serves no openapi.get route');
      // The handler answers the document it serves and reads nothing of its request.
      return await (route.def.handler as (args: unknown) => unknown)({});
    } finally {
      await kernel.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A copy with every object's members in key order (arrays keep theirs), as JSON would carry it. */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortedKeys(v)]));
  }
  return value;
}

/**
 * The generated files for a document: the document with its keys in order (a route added anywhere is one hunk of a
 * diff, not a reshuffle), pretty-printed; and openapi-typescript's `paths`, `components` and `operations` of it.
 */
export async function renderSdk(document: unknown): Promise<SdkFiles> {
  const sorted = sortedKeys(JSON.parse(JSON.stringify(document))) as OpenAPI3;
  const json = `${JSON.stringify(sorted, null, 2)}\n`;
  // A copy: the generator resolves references in what it is given.
  const ast = await openapiTS(structuredClone(sorted), { silent: true });
  return { 'openapi.json': json, 'src/schema.ts': SCHEMA_HEADER + astToString(ast) };
}

/** The generated files that are missing from sdk/ or differ from `files`. */
export function staleFiles(files: SdkFiles, dir = SDK_DIR): GeneratedFile[] {
  return GENERATED.filter((name) => {
    const file = path.join(dir, name);
    return !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== files[name];
  });
}

export function writeFiles(files: SdkFiles, dir = SDK_DIR): GeneratedFile[] {
  const changed = staleFiles(files, dir);
  for (const name of changed) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, files[name]);
  }
  return changed;
}
