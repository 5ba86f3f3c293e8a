import assert from 'node:assert/strict';
import { generateNKeysBetween } from 'fractional-indexing';
import { recordsWorld, type RecordsWorld } from './setup.ts';

/**
 * `q` in manual order takes three paths (the next 2,000 records walked; a longer walk sized by the matches found in
 * them, when the table is large enough that the index would hand over more matches than that walk reads records; else
 * the title's trigram index first): whichever it takes, every match comes, in order, once, page after page, before
 * and after the statistics are fresh.
 */
/** The titles of every page of `q` in manual order, read as the member, following next_cursor. */
async function searchAll(w: RecordsWorld, q: string, limit: number): Promise<string[]> {
  const titles: string[] = [];
  let cursor: string | null = null;
  do {
    const res: { body: { data: Array<{ values: { name: string } }>; next_cursor: string | null } } = await w.t.request.get(w.url(`?q=${encodeURIComponent(q)}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).set(w.member.auth).expect(200);
    titles.push(...res.body.data.map((r) => r.values.name));
    cursor = res.body.next_cursor;
  } while (cursor);
  return titles;
}

describe('records: title search past the first records', function () {
  this.timeout(120_000);
  let w: RecordsWorld;
  const RECORDS = 2600;
  const rare = new Set([3, 2101, 2102, 2599]);
  /** One in 200: ten in the first 2,000 records, so the first walk holds no page of ten and a wider one does. */
  const sparse = (i: number) => i % 200 === 50;
  const titleOf = (i: number) => (rare.has(i) ? `Zebra needle ${i}` : sparse(i) ? `Sparse mark ${i}` : i % 3 === 0 ? `Common thread ${i}` : `Plain ${i}`);

  before(async () => {
    w = await recordsWorld();
    for (let start = 0; start < RECORDS; start += 100) {
      const records = Array.from({ length: 100 }, (_, k) => ({ values: { name: titleOf(start + k) } }));
      await w.t.request.post(w.url()).set(w.admin.auth).send({ records }).expect(201);
    }
  });
  after(() => w.t.stop());

  const all = (q: string, limit: number) => searchAll(w, q, limit);

  for (const analysed of [false, true]) {
    it(`finds a rare text and a common one in manual order, page by page${analysed ? ', after ANALYZE' : ''}`, async () => {
      if (analysed) await w.t.db.raw('ANALYZE ??', [w.table]);
      assert.deepEqual(await all('needle', 2), [...rare].map(titleOf));
      const common = Array.from({ length: RECORDS }, (_, i) => i).filter((i) => i % 3 === 0 && !rare.has(i) && !sparse(i)).map(titleOf);
      assert.deepEqual(await all('thread', 97), common);
      assert.deepEqual(await all('mark', 10), Array.from({ length: RECORDS }, (_, i) => i).filter(sparse).map(titleOf));
      assert.deepEqual(await all('nothing like it', 50), []);
    });
  }
});

describe('records: title search in a table large enough for the second walk', function () {
  this.timeout(120_000);
  let w: RecordsWorld;
  const RECORDS = 18_000;
  /** One in 20: a hundred in the first 2,000 records, no more than a page of 100, and 900 in all. */
  const titleOf = (i: number) => (i % 20 === 7 ? `Dense dot ${i}` : `Plain ${i}`);

  before(async () => {
    w = await recordsWorld();
    const admin = w.admin.id;
    const positions = generateNKeysBetween(null, null, RECORDS);
    const rows = positions.map((position, i) => ({ position, created_by: admin, updated_by: admin, [w.column.name]: titleOf(i) }));
    // Filled by SQL: through the API this many records would take most of the suite's minute.
    for (let start = 0; start < RECORDS; start += 2000) await w.t.db(w.table).insert(rows.slice(start, start + 2000));
    await w.t.db.raw('ANALYZE ??', [w.table]);
  });
  after(() => w.t.stop());

  it('finds every match in order, page by page', async () => {
    assert.deepEqual(await searchAll(w, 'dot', 100), Array.from({ length: RECORDS }, (_, i) => i).filter((i) => i % 20 === 7).map(titleOf));
  });
});
