import path from 'node:path';
import { Command } from 'commander';
import { runCli } from './cli.ts';
import { renderSdk, SDK_DIR, servedDocument, staleFiles, writeFiles } from './sdk-files.ts';

/**
 * `npm run sdk`: regenerates sdk/openapi.json and sdk/src/schema.ts from the document a kernel with every built-in
 * plugin serves. `npm run sdk -- --check` writes nothing and exits 1 when the committed files differ (the suite's
 * test/sdk/sdk.test.ts makes the same check).
 */
await runCli(async () => {
  const program = new Command('sdk')
    .description('Regenerate the TypeScript SDK (sdk/) from the OpenAPI document of a kernel with every built-in plugin')
    .option('--check', 'write nothing; exit 1 when sdk/openapi.json or sdk/src/schema.ts is not what would be generated')
    .parse(process.argv);
  const { check = false } = program.opts<{ check?: boolean }>();
  const started = performance.now();
  const files = await renderSdk(await servedDocument());
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const shown = (names: string[]) => names.map((name) => path.join(path.relative(process.cwd(), SDK_DIR) || '.', name)).join(', ');
  if (check) {
    const stale = staleFiles(files);
    if (stale.length) {
      process.stderr.write(`tessera: the SDK is out of date: ${shown(stale)} ${stale.length === 1 ? 'differs' : 'differ'} from what the served OpenAPI document gives. Run \`npm run sdk\` and commit the result.\n`);
      process.exit(1);
    }
    process.stdout.write(`the SDK is current (${seconds} s)\n`);
    return;
  }
  const changed = writeFiles(files);
  process.stdout.write(changed.length ? `wrote ${shown(changed)} (${seconds} s)\n` : `the SDK was already current (${seconds} s)\n`);
});
