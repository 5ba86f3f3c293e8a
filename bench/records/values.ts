import type { BenchDatabase } from './setup.ts';
import { STATUS_LABELS } from './setup.ts';
import { NOUNS, TITLE_WORDS } from './words.ts';

/** API values of a new record `i`: every writable field, selects by label, the owner by user id. */
export function newRecordValues(bench: BenchDatabase, i: number): Record<string, unknown> {
  return {
    title: `${TITLE_WORDS[(i * 7) % TITLE_WORDS.length]} ${NOUNS[i % NOUNS.length]} new ${i}`,
    status: STATUS_LABELS[i % STATUS_LABELS.length],
    priority: (i % 5) + 1,
    amount: ((i * 3739) % 1_000_000) / 100,
    due: `2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    done: i % 2 === 0,
    owner: i % 2 === 0 ? bench.admin.id : bench.editor.id,
    email: `new${i}@example.com`,
    rating: (i % 5) + 1,
    notes: `Created by the records benchmark, request ${i}.`,
  };
}
