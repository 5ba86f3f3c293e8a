import assert from 'node:assert/strict';
import { recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('databases: indexes for the fields views sort and filter on', () => {
  let w: RecordsWorld;
  const sync = () => w.t.container.resolverFor('databases')('databases.viewIndexes').sync(w.db);
  const fieldId = async (apiName: string) => (await w.t.db('fields').where({ database_id: w.db, api_name: apiName }).first('id')).id as string;
  const indexName = async (apiName: string, direction = 'asc') => `${w.table}_v_${(await fieldId(apiName)).replace(/-/g, '').slice(0, 20)}${direction === 'desc' ? '_d' : ''}`;
  const indexes = async () =>
    new Map(
      ((await w.t.db.raw('SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ? AND indexname LIKE ?', [w.table, '%\\_v\\_%'])).rows as Array<{ indexname: string; indexdef: string }>).map((r) => [
        r.indexname,
        r.indexdef,
      ]),
    );
  const sortIndexes = async () => ((await w.t.db('databases').where({ id: w.db }).first('sort_indexes')).sort_indexes as string[]).sort();
  const configure = async (config: object) => {
    await w.t.db('database_views').where({ database_id: w.db }).update({ config });
  };

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
  });

  it('indexes sorted fields (in their direction), then filtered ones, on live rows, and drops what no view needs any more', async () => {
    await configure({ sorts: [{ field: 'name' }, { field: 'score', direction: 'desc' }], filter: { and: [{ field: 'stage', op: 'eq', value: 'Open' }, { field: 'ghost', op: 'is_empty' }] } });
    const first = await sync();
    const made = await indexes();
    assert.deepEqual([...made.keys()].sort(), [await indexName('name'), await indexName('score', 'desc'), await indexName('stage')].sort());
    assert.deepEqual(first.created.sort(), [...made.keys()].sort());
    // text on its sort key, so ORDER BY lower(name) COLLATE "C" can use it; others on the column; live rows only
    assert.match(made.get(await indexName('name'))!, /lower\(.*COLLATE "C".*, id\) WHERE \(deleted_at IS NULL\)/);
    // score is sorted descending: records sort `score DESC NULLS LAST, id ASC`, which only an index built so serves
    assert.match(made.get(await indexName('score', 'desc'))!, /\(f_[0-9a-f]+ DESC NULLS LAST, id\) WHERE \(deleted_at IS NULL\)/);
    assert.match(made.get(await indexName('stage'))!, /\(f_[0-9a-f]+, id\) WHERE \(deleted_at IS NULL\)/);

    // What the readers are told they may page down: these three, and the table's own indexes (position, id, number).
    const col = (apiName: string) => `"${w.column[apiName]}"`;
    const table = ['"id" asc', '"number" asc', '"position" asc'];
    assert.deepEqual(await sortIndexes(), [...table, `${col('score')} desc`, `${col('stage')} asc`, `lower(${col('name')}) COLLATE "C" asc`].sort());

    assert.deepEqual(await sync(), { created: [], dropped: [] });
    await configure({ sorts: [{ field: 'score' }] });
    const second = await sync();
    assert.deepEqual([...(await indexes()).keys()], [await indexName('score')]);
    assert.deepEqual(second.created, [await indexName('score')], 'sorted the other way: built again ascending');
    assert.deepEqual(second.dropped.sort(), [await indexName('name'), await indexName('score', 'desc'), await indexName('stage')].sort());
    assert.deepEqual(await sortIndexes(), [...table, `${col('score')} asc`].sort());
  });

  it('gives a field sorted both ways an index each way, and a filter on it neither more', async () => {
    await configure({ sorts: [{ field: 'score', direction: 'desc' }, { field: 'score', direction: 'asc' }], filter: { and: [{ field: 'score', op: 'gt', value: 1 }] } });
    assert.deepEqual((await sync()).created.sort(), [await indexName('score'), await indexName('score', 'desc')].sort());
    const column = (await w.t.db('fields').where({ database_id: w.db, api_name: 'score' }).first('column_name')).column_name as string;
    assert.deepEqual((await sortIndexes()).filter((o) => o.startsWith(`"${column}"`)), [`"${column}" asc`, `"${column}" desc`]);
  });

  it('keeps at most the configured number per table, sorted fields first', async () => {
    await configure({ filter: { and: [{ field: 'done', op: 'eq', value: true }, { field: 'owner', op: 'is_empty' }] }, sorts: ['stage', 'score', 'name', 'updated_at', 'number', 'created_at', 'created_by'].map((field) => ({ field })) });
    await sync();
    // system fields have no column of their own to index here; the cap (6 by default) is not reached by the rest
    assert.deepEqual([...(await indexes()).keys()].sort(), [await indexName('stage'), await indexName('score'), await indexName('name'), await indexName('done'), await indexName('owner')].sort());
  });

  it('builds nothing for a field an index of the table already leads in the way it is used, and keeps its budget for others', async () => {
    const column = (await w.t.db('fields').where({ database_id: w.db, api_name: 'score' }).first('column_name')).column_name as string;
    // Made by hand (or a migration): ascending on live rows; a partial index on other rows serves nothing here.
    await w.t.db.raw('CREATE INDEX ?? ON ?? (??, id) WHERE deleted_at IS NULL', [`${w.table}_by_hand`, w.table, column]);
    await w.t.db.raw('CREATE INDEX ?? ON ?? (??) WHERE deleted_at IS NOT NULL', [`${w.table}_trashed_score`, w.table, column]);
    await configure({ sorts: [{ field: 'score' }], filter: { and: [{ field: 'stage', op: 'eq', value: 'Open' }] } });
    assert.deepEqual((await sync()).created, [await indexName('stage')]);
    assert.deepEqual([...(await indexes()).keys()], [await indexName('stage')]);
    // Sorted descending, which the ascending one does not serve, nor a plain DESC one (empty cells first; records
    // sort them last): built.
    await w.t.db.raw('CREATE INDEX ?? ON ?? (?? DESC, id) WHERE deleted_at IS NULL', [`${w.table}_desc_by_hand`, w.table, column]);
    await configure({ sorts: [{ field: 'score', direction: 'desc' }] });
    assert.deepEqual((await sync()).created, [await indexName('score', 'desc')]);
  });

  it('does nothing for a database that is gone', async () => {
    const sync = w.t.container.resolverFor('databases')('databases.viewIndexes');
    assert.deepEqual(await sync.sync('00000000-0000-4000-8000-000000000000'), { created: [], dropped: [] });
  });
});
