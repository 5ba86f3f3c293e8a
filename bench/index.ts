/**
 * `npm run bench`: the HTTP benchmarks (bench/run.ts), the records benchmarks (bench/records.ts),
 * the relations benchmarks (bench/relations.ts), the notifications benchmarks (bench/notifications.ts), the history
 * benchmarks (bench/history.ts), the CSV export benchmark (bench/export.ts), then the cost of the input guard
 * (bench/input-guard.ts), each in its own process with the same arguments. `npm run bench -- http …`, `… records …`,
 * `… relations …`, `… notifications …`, `… history …`, `… export` or `… input-guard` runs one of them.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SUITES = { http: 'run.ts', records: 'records.ts', relations: 'relations.ts', notifications: 'notifications.ts', history: 'history.ts', export: 'export.ts', 'input-guard': 'input-guard.ts' } as const;

const [first, ...rest] = process.argv.slice(2);
const chosen = first in SUITES ? [first as keyof typeof SUITES] : (Object.keys(SUITES) as Array<keyof typeof SUITES>);
const args = first in SUITES ? rest : process.argv.slice(2);
let status = 0;
for (const suite of chosen) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(HERE, SUITES[suite]), ...args], { stdio: 'inherit' });
  status ||= run.status ?? 1;
}
process.exit(status);
