import assert from 'node:assert/strict';
import type { TestKernel, SignedUpUser } from '../../../../core/testing.ts';
import { storedCell } from '../reference/cells.ts';
import type { RefField, RefRecord, RefWorld } from '../reference/model.ts';
import type { Change, LinkedDatabase, Values } from './arbitraries.ts';

/** The kernel, the workspace and the people every generated database shares. */
export interface PropertyEnv {
  t: TestKernel;
  ws: string;
  space: string;
  /** Writes records. */
  writer: SignedUpUser;
  /** Queries them ("me"). */
  reader: SignedUpUser;
  /** `@user:i` in generated values. */
  users: SignedUpUser[];
  /** The space linked databases are made in: `guest` is not given it. */
  hiddenSpace: string;
  /** A guest of `space` only: it reads the generated databases, never what they link to. */
  guest: SignedUpUser;
}

export interface ApiPage {
  data: Array<{ id: string; values: Record<string, unknown> }>;
  next_cursor: string | null;
  count?: number;
  count_exact?: boolean;
}

const NOBODY = '00000000-0000-4000-8000-0000000000ff';

function dayFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** The link field's relation as stored: its junction table, this database's end of it, and the database at the other. */
interface LinkEnd {
  field: RefField;
  junction: string;
  mine: 'from_id' | 'to_id';
  theirs: 'from_id' | 'to_id';
  target: PropertyDatabase;
}

/** Types made with their relation (link) or after it (those reading through a link). */
const THROUGH_LINKS = new Set(['link', 'lookup', 'rollup', 'count']);

function fieldOptions(field: RefField): object | undefined {
  switch (field.type) {
    case 'number': return { precision: field.precision };
    case 'datetime': return { time_zone: field.zone };
    case 'single_select': case 'multi_select': return { choices: field.choices };
    case 'lookup': return { link_field_id: field.via, target_field_id: field.target };
    case 'rollup': return { link_field_id: field.via, target_field_id: field.target, function: field.fn };
    case 'count': return { link_field_id: field.via };
    default: return undefined;
  }
}

/**
 * One generated database behind the HTTP API, and the reference's picture of it: every write
 * goes through the API and then into the picture, with what the server chose (ids, numbers,
 * positions, creation instants, when links were made) read back.
 */
export class PropertyDatabase {
  /** Every record made here, live or not, in the order made: what `@linked:i` names. */
  private readonly made: string[] = [];
  /** When the last links written here were made (µs). */
  private youngestLink = 0n;

  private constructor(
    private readonly env: PropertyEnv,
    private readonly id: string,
    private readonly table: string,
    readonly world: RefWorld,
    private readonly link?: LinkEnd,
  ) {}

  /**
   * Adaptive indexes appear or go at once, as the indexes plugin would make them learn or forget: every field with a
   * column is learned (its index built; every other field both ways, as sorts both ways teach), or nothing is (every
   * index dropped). Plans change; answers must not.
   */
  async churnIndexes(present: boolean): Promise<void> {
    const { t } = this.env;
    await t.db('index_fields').where({ database_id: this.id }).delete();
    if (present) {
      const fields = (await t.db('fields').where({ database_id: this.id }).whereNull('deleted_at').whereNotNull('column_name').pluck('id')) as string[];
      const now = new Date();
      // The learner may have recorded a field since the delete (a slow query of the walk before teaches it): this wins.
      const rows = fields.map((id, i) => ({ database_id: this.id, field_id: id, mode: 'auto', uses: 1, learned_at: now, last_used_at: now, ascending: true, descending: i % 2 === 1 }));
      if (rows.length > 0) await t.db('index_fields').insert(rows).onConflict(['database_id', 'field_id']).merge();
    }
    await t.container.resolverFor('databases')('databases.viewIndexes').sync(this.id);
  }

  /** The database with its fields; with a link field, first the linked database and its records, then the relation. */
  static async create(env: PropertyEnv, fields: RefField[], name: string, linked?: LinkedDatabase, space = env.space): Promise<PropertyDatabase> {
    const { t, ws, writer } = env;
    const created = await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(writer.auth).send({ name, space_id: space }).expect(201);
    const id = created.body.id;
    const addField = (field: RefField) =>
      t.request.post(`/api/v1/workspaces/${ws}/databases/${id}/fields`).set(writer.auth).send({ name: field.api_name, api_name: field.api_name, type: field.type, options: fieldOptions(field) }).expect(201);
    for (const field of fields.filter((f) => f.api_name !== 'name' && f.api_name !== 'created_at' && !THROUGH_LINKS.has(f.type))) await addField(field);
    const table = (await t.db('databases').where({ id }).first('table_name')).table_name;
    const userNames = new Map(env.users.map((u) => [u.id, u.name]));
    const world: RefWorld = { fields, records: [], userNames, me: env.reader.id };
    const field = fields.find((f) => f.type === 'link');
    if (!field || !linked) return new PropertyDatabase(env, id, table, world);

    const target = await PropertyDatabase.create(env, linked.fields, `${name}L`, undefined, env.hiddenSpace);
    await target.createRecords(linked.records);
    const { kind, side } = field.relation!;
    const [here, there] = [field.api_name, 'back'];
    const body = side === 'from'
      ? { from_database_id: id, to_database_id: target.id, kind, from_field_name: here, to_field_name: there }
      : { from_database_id: target.id, to_database_id: id, kind, from_field_name: there, to_field_name: here };
    const relation = (await t.request.post(`/api/v1/workspaces/${ws}/relations`).set(writer.auth).send(body).expect(201)).body;
    assert.equal((side === 'from' ? relation.from_field : relation.to_field).api_name, field.api_name);
    for (const computed of fields.filter((f) => THROUGH_LINKS.has(f.type) && f.type !== 'link')) await addField(computed);
    world.linked = target.world;
    const ends = side === 'from' ? { mine: 'from_id' as const, theirs: 'to_id' as const } : { mine: 'to_id' as const, theirs: 'from_id' as const };
    return new PropertyDatabase(env, id, table, world, { field, junction: `lnk_${relation.id.replace(/-/g, '')}`, ...ends, target });
  }

  url(path = ''): string {
    return `/api/v1/workspaces/${this.env.ws}/databases/${this.id}/records${path}`;
  }

  /** Generated symbols → what is sent. */
  resolve<T>(value: T): T {
    return JSON.parse(JSON.stringify(value), (_key, v) => {
      if (typeof v !== 'string' || !v.startsWith('@')) return v;
      const user = /^@(user|USER):(\d)$/.exec(v);
      if (user) return user[1] === 'USER' ? this.env.users[Number(user[2])].id.toUpperCase() : this.env.users[Number(user[2])].id;
      const days: Record<string, number> = { '@yesterday': -1, '@today': 0, '@tomorrow': 1 };
      if (v in days) return dayFromToday(days[v]);
      if (v === '@nobody') return NOBODY;
      const linked = /^@(linked|LINKED):(\d)$/.exec(v);
      if (linked && this.link) {
        const made = this.link.target.made;
        const id = made[Number(linked[2]) % made.length];
        return linked[1] === 'LINKED' ? id.toUpperCase() : id;
      }
      throw new Error(`unknown symbol ${v}`);
    });
  }

  /**
   * Creates records in one request (one transaction). In a one-to-many relation seen from its
   * `from` side, linked records another record holds, or one earlier in the batch, are left out
   * of link cells: the batch would be refused whole.
   */
  async createRecords(batch: Values[]): Promise<void> {
    const sent = batch.map((values) => this.outgoing(values));
    if (this.link && this.exclusive) {
      const api = this.link.field.api_name;
      const claimed = new Set<string>();
      for (const values of sent.filter((v) => Array.isArray(v[api]))) {
        values[api] = (values[api] as string[]).filter((id) => !claimed.has(id) && this.holderOf(id, undefined) === undefined);
        for (const id of values[api] as string[]) claimed.add(id);
      }
    }
    const res = await this.env.t.request.post(this.url()).set(this.env.writer.auth).send({ records: sent.map((values) => ({ values })) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await this.remember(res.body.data, sent);
  }

  /**
   * Applies a change; returns the ids of the records whose values it changed: the record written,
   * or those linked to the linked record written. A link cell taking a linked record another
   * record holds (one-to-many) is refused with 409 naming that record, and nothing changes.
   */
  async apply(change: Change): Promise<string[]> {
    const { t, writer } = this.env;
    const live = this.world.records;
    if (change.kind === 'update_linked' || change.kind === 'delete_linked') {
      if (!this.link) return [];
      const { afterPage, target } = change;
      const [linked] = await this.link.target.apply(change.kind === 'update_linked' ? { afterPage, kind: 'update', target, values: change.values } : { afterPage, kind: 'delete', target });
      const api = this.link.field.api_name;
      return live.filter((r) => (r.links[api] ?? []).some((l) => l.id === linked)).map((r) => r.id);
    }
    if (change.kind === 'create') {
      const values = this.outgoing(change.values);
      const res = await t.request.post(this.url()).set(writer.auth).send({ values });
      const holder = this.clash(values, undefined);
      if (holder) {
        assert.deepEqual([res.status, res.body.linked_record_id], [409, holder], JSON.stringify(res.body));
        return [];
      }
      assert.equal(res.status, 201, JSON.stringify(res.body));
      await this.remember([res.body], [values]);
      return [res.body.id];
    }
    if (live.length === 0) return [];
    const record = live[change.target % live.length];
    if (change.kind === 'delete') {
      await t.request.delete(this.url(`/${record.id}`)).set(writer.auth).expect(204);
      live.splice(live.indexOf(record), 1);
    } else if (change.kind === 'update') {
      const values = this.outgoing(change.values);
      const res = await t.request.patch(this.url(`/${record.id}`)).set(writer.auth).send({ values });
      const holder = this.clash(values, record.id);
      if (holder) {
        assert.deepEqual([res.status, res.body.linked_record_id], [409, holder], JSON.stringify(res.body));
        return [];
      }
      assert.equal(res.status, 200, JSON.stringify(res.body));
      this.write(record, values);
      await this.storeLinks([[record, values]]);
    } else {
      const anchor = live[change.anchor % live.length];
      const body = change.side === 'end' || anchor === record ? {} : { [`${change.side}_id`]: anchor.id };
      const res = await t.request.post(this.url(`/${record.id}/move`)).set(writer.auth).send(body).expect(200);
      record.position = res.body.position;
    }
    return [record.id];
  }

  async page(via: 'get' | 'post', query: object, limit: number, cursor: string | null, reader = this.env.reader): Promise<ApiPage> {
    const { t } = this.env;
    const res =
      via === 'get'
        ? await t.request.get(this.url()).query({ ...query, limit, ...(cursor ? { cursor } : {}) }).set(reader.auth)
        : await t.request.post(this.url('/query')).set(reader.auth).send({ ...query, limit, ...(cursor ? { cursor } : {}) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }

  /** Generated values → what is sent: symbols resolved, a link cell's indices → live linked records' ids. */
  private outgoing(values: Values): Values {
    const out = this.resolve(values);
    const cell = this.link && out[this.link.field.api_name];
    if (Array.isArray(cell)) {
      const live = this.link!.target.world.records;
      out[this.link!.field.api_name] = live.length === 0 ? [] : (cell as number[]).map((i) => live[i % live.length].id);
    }
    return out;
  }

  /** One-to-many from its `from` side: a linked record has one live record linked to it at most. */
  private get exclusive(): boolean {
    const relation = this.link?.field.relation;
    return relation?.kind === 'one_to_many' && relation.side === 'from';
  }

  /** The live record other than `except` that links to the linked record `id`. */
  private holderOf(id: string, except: string | undefined): string | undefined {
    const api = this.link!.field.api_name;
    return this.world.records.find((r) => r.id !== except && (r.links[api] ?? []).some((l) => l.id === id))?.id;
  }

  /** The record holding the first linked record in `values` that the record `recordId` may not take (one-to-many), if any. */
  private clash(values: Values, recordId: string | undefined): string | undefined {
    const ids = this.link && values[this.link.field.api_name];
    if (!this.exclusive || !Array.isArray(ids)) return undefined;
    return (ids as string[]).map((id) => this.holderOf(id, recordId)).find((holder) => holder !== undefined);
  }

  /**
   * The links of records whose link cell was just written, in one request: the ids sent (replace
   * semantics), each with the instant its link was made, read back. What decides the order they
   * show in is checked here: a link kept keeps its age, and those the request made are one age
   * (its transaction's), younger than any made before.
   */
  private async storeLinks(written: Array<[RefRecord, Values]>): Promise<void> {
    if (!this.link) return;
    const { junction, mine, theirs, field } = this.link;
    const cells = written.filter(([, values]) => field.api_name in values);
    if (cells.length === 0) return;
    const { db } = this.env.t;
    const rows: Array<{ record: string; linked: string; us: string }> = await db(junction)
      .whereIn(mine, cells.map(([r]) => r.id))
      .select(`${mine} as record`, `${theirs} as linked`, db.raw('(extract(epoch from created_at) * 1000000)::bigint::text AS us'));
    const made = new Set<bigint>();
    for (const [record, values] of cells) {
      const context = `links of ${record.id} after writing ${JSON.stringify(values[field.api_name])}`;
      const before = new Map((record.links[field.api_name] ?? []).map((l) => [l.id, l.at]));
      const links = rows.filter((row) => row.record === record.id).map((row) => ({ id: row.linked, at: BigInt(row.us) }));
      assert.deepEqual(links.map((l) => l.id).sort(), [...new Set((values[field.api_name] ?? []) as string[])].sort(), context);
      for (const l of links) {
        if (before.has(l.id)) assert.equal(l.at, before.get(l.id), `age of a kept link: ${context}`);
        else made.add(l.at);
      }
      record.links[field.api_name] = links;
    }
    assert.ok(made.size <= 1, 'the links one request makes are one age');
    assert.ok([...made].every((at) => at > this.youngestLink), 'new links are younger than any made before');
    this.youngestLink = [...made][0] ?? this.youngestLink;
  }

  /** New records into the picture, with their creation instants to the microsecond (API shows milliseconds). */
  private async remember(created: Array<{ id: string; number: number; position: string }>, sent: Values[]): Promise<void> {
    const { db } = this.env.t;
    const rows: Array<{ id: string; us: string }> = await db(this.table)
      .whereIn('id', created.map((r) => r.id))
      .select('id', db.raw('(extract(epoch from created_at) * 1000000)::bigint::text AS us'));
    const us = new Map(rows.map((r) => [r.id, BigInt(r.us)]));
    const records = created.map((r, i): [RefRecord, Values] => {
      const record: RefRecord = { id: r.id, number: r.number, position: r.position, createdUs: us.get(r.id)!, cells: {}, links: {} };
      this.write(record, sent[i]);
      this.world.records.push(record);
      this.made.push(r.id);
      return [record, sent[i]];
    });
    await this.storeLinks(records);
  }

  /** The cells with a column of their own (links: `storeLinks`). */
  private write(record: RefRecord, values: Values): void {
    for (const [apiName, value] of Object.entries(values)) {
      const field = this.world.fields.find((f) => f.api_name === apiName)!;
      if (field.type !== 'link') record.cells[apiName] = storedCell(field, value);
    }
  }
}
