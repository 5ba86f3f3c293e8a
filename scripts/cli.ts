import { StartupError } from '../core/errors.ts';
import { PluginHookError } from '../core/hooks.ts';

/** Runs a CLI entry point; start-up errors print one clear line instead of a stack. */
export async function runCli(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (err) {
    if (err instanceof StartupError || err instanceof PluginHookError) {
      process.stderr.write(`tessera: ${err.message}\n`);
    } else {
      process.stderr.write(`tessera: ${(err as Error)?.stack ?? String(err)}\n`);
    }
    process.exit(1);
  }
}
