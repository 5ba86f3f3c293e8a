import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Storage } from './storage.ts';

const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = path.resolve(BENCH, '..');

export interface Server {
  url: string;
  /** The server's process id, to read its memory from /proc. */
  pid: number;
  /** Until the server has fanned out every event recorded so far (bench/server.ts, one process). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Boots bench/server.ts (or another `script` of bench/, such as the floor) in its own process (so the load
 * generator does not share its event loop) on `storage`; with `profileDir`, it writes a V8 CPU profile there when it stops.
 */
export function startServer(storage: Storage, profileDir: string | null = null, script = 'server.ts', env: Record<string, string> = {}): Promise<Server> {
  const execArgv = ['--import', 'tsx'];
  if (profileDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  const child = fork(path.join(BENCH, script), [], { cwd: ROOT, execArgv, env: { ...process.env, ...storage.env, ...env } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench server exited (${code}) before listening`)));
    child.once('message', (m: { port: number }) =>
      resolve({
        url: `http://127.0.0.1:${m.port}`,
        pid: child.pid!,
        settle: () =>
          new Promise<void>((done) => {
            const heard = (m: unknown) => {
              if (m !== 'settled') return;
              child.off('message', heard);
              done();
            };
            child.on('message', heard);
            child.send('settle');
          }),
        async stop() {
          child.send('stop');
          await exited;
        },
      }),
    );
  });
}
