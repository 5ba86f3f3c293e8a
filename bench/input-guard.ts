/**
 * `npm run bench -- input-guard`: what refusing hostile input at the edge (core/input-guard.ts) costs
 * a request, beside what the same request pays anyway to parse its JSON. The body is the records
 * benchmark's largest write: a bulk create of 100 records of 12 cells. Printed per body, and as a
 * ratio to JSON.parse of the same text, both measured in this run.
 */
import { performance } from 'node:perf_hooks';
import { findHostileInput } from '../core/input-guard.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2000);

const record = (i: number) => ({
  values: {
    name: `Deal ${i} with Acme Corporation`,
    status: i % 3 === 0 ? 'Open' : 'Won',
    priority: i % 5,
    amount: 1234.56 + i,
    due: '2026-11-24',
    done: i % 2 === 0,
    owner: '0190c7a2-5b7e-7000-8000-000000000001',
    tags: ['renewal', 'enterprise'],
    notes: 'A longer text cell, as people write them: a sentence or two about the deal and what comes next.',
    email: `buyer${i}@example.com`,
    url: 'https://example.com/deals',
    meta: { source: 'import', score: 0.75 },
  },
});
const text = JSON.stringify({ records: Array.from({ length: 100 }, (_, i) => record(i)) });
const body = JSON.parse(text);

/** Median microseconds of `fn` over ROUNDS calls, after a warm-up. */
function median(fn: () => unknown): number {
  for (let i = 0; i < 200; i += 1) fn();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const start = performance.now();
    fn();
    times.push((performance.now() - start) * 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

const guard = median(() => findHostileInput(body));
const parse = median(() => JSON.parse(text));
console.log(`input guard, bulk create of 100 records (${(text.length / 1024).toFixed(0)} KiB of JSON)`);
console.log(`  findHostileInput  ${guard.toFixed(1)} µs (median of ${ROUNDS})`);
console.log(`  JSON.parse        ${parse.toFixed(1)} µs`);
console.log(`  ratio guard/parse ${(guard / parse).toFixed(2)}`);
