/**
 * `npm run bench`: every suite of SUITES below (bench/<file>), each in its own process with the same arguments;
 * `npm run bench -- <suite> …` runs one of them. bench/README.md says what each one measures.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SUITES = { http: 'run.ts', records: 'records.ts', relations: 'relations.ts', notifications: 'notifications.ts', history: 'history.ts', 'input-guard': 'input-guard.ts', attachments: 'attachments.ts', blobs: 'blobs.ts', import: 'import.ts', export: 'export.ts', public: 'public.ts', search: 'search.ts', webhooks: 'webhooks.ts', automations: 'automations.ts', writes: 'writes.ts', integrations: 'integrations.ts', sources: 'sources.ts', billing: 'billing.ts', realtime: 'realtime.ts', console: 'console.ts' } as const;

const [first, ...rest] = process.argv.slice(2);
const chosen = first in SUITES ? [first as keyof typeof SUITES] : (Object.keys(SUITES) as Array<keyof typeof SUITES>);
const args = first in SUITES ? rest : process.argv.slice(2);
let status = 0;
for (const suite of chosen) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(HERE, SUITES[suite]), ...args], { stdio: 'inherit' });
  status ||= run.status ?? 1;
}
process.exit(status);
