import assert from 'node:assert/strict';
import type { TestKernel } from '../../../../core/testing.ts';
import type { SignedUpUser } from '../../../helpers.ts';
import { storedCell } from '../reference/cells.ts';
import type { RefField, RefRecord, RefWorld } from '../reference/model.ts';
import type { Change, Values } from './arbitraries.ts';

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

/**
 * One generated database behind the HTTP API, and the reference's picture of it: every write
 * goes through the API and then into the picture, with what the server chose (ids, numbers,
 * positions, creation instants) read back.
 */
export class PropertyDatabase {
  private constructor(
    private readonly env: PropertyEnv,
    private readonly id: string,
    private readonly table: string,
    readonly world: RefWorld,
  ) {}

  static async create(env: PropertyEnv, fields: RefField[], name: string): Promise<PropertyDatabase> {
    const { t, ws, writer } = env;
    const created = await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(writer.auth).send({ name, space_id: env.space }).expect(201);
    const id = created.body.id;
    for (const field of fields.filter((f) => f.api_name !== 'name' && f.api_name !== 'created_at')) {
      const options = field.type === 'number' ? { precision: field.precision } : field.type === 'datetime' ? { time_zone: field.zone } : field.choices ? { choices: field.choices } : undefined;
      await t.request.post(`/api/v1/workspaces/${ws}/databases/${id}/fields`).set(writer.auth).send({ name: field.api_name, api_name: field.api_name, type: field.type, options }).expect(201);
    }
    const table = (await t.db('databases').where({ id }).first('table_name')).table_name;
    const userNames = new Map(env.users.map((u) => [u.id, u.name]));
    return new PropertyDatabase(env, id, table, { fields, records: [], userNames, me: env.reader.id });
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
      throw new Error(`unknown symbol ${v}`);
    });
  }

  /** Creates records in one request (one transaction). */
  async createRecords(batch: Values[]): Promise<void> {
    const sent = batch.map((values) => this.resolve(values));
    const res = await this.env.t.request.post(this.url()).set(this.env.writer.auth).send({ records: sent.map((values) => ({ values })) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await this.remember(res.body.data, sent);
  }

  /** Applies a change; returns the id of the record it touched (undefined when there was none to touch). */
  async apply(change: Change): Promise<string | undefined> {
    const { t, writer } = this.env;
    const live = this.world.records;
    if (change.kind === 'create') {
      const values = this.resolve(change.values);
      const res = await t.request.post(this.url()).set(writer.auth).send({ values });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      await this.remember([res.body], [values]);
      return res.body.id;
    }
    if (live.length === 0) return undefined;
    const record = live[change.target % live.length];
    if (change.kind === 'delete') {
      await t.request.delete(this.url(`/${record.id}`)).set(writer.auth).expect(204);
      live.splice(live.indexOf(record), 1);
    } else if (change.kind === 'update') {
      const values = this.resolve(change.values);
      const res = await t.request.patch(this.url(`/${record.id}`)).set(writer.auth).send({ values });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      this.write(record, values);
    } else {
      const anchor = live[change.anchor % live.length];
      const body = change.side === 'end' || anchor === record ? {} : { [`${change.side}_id`]: anchor.id };
      const res = await t.request.post(this.url(`/${record.id}/move`)).set(writer.auth).send(body).expect(200);
      record.position = res.body.position;
    }
    return record.id;
  }

  async page(via: 'get' | 'post', query: object, limit: number, cursor: string | null): Promise<ApiPage> {
    const { t, reader } = this.env;
    const res =
      via === 'get'
        ? await t.request.get(this.url()).query({ ...query, limit, ...(cursor ? { cursor } : {}) }).set(reader.auth)
        : await t.request.post(this.url('/query')).set(reader.auth).send({ ...query, limit, ...(cursor ? { cursor } : {}) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }

  /** New records into the picture, with their creation instants to the microsecond (API shows milliseconds). */
  private async remember(created: Array<{ id: string; number: number; position: string }>, sent: Values[]): Promise<void> {
    const { db } = this.env.t;
    const rows: Array<{ id: string; us: string }> = await db(this.table)
      .whereIn('id', created.map((r) => r.id))
      .select('id', db.raw('(extract(epoch from created_at) * 1000000)::bigint::text AS us'));
    const us = new Map(rows.map((r) => [r.id, BigInt(r.us)]));
    created.forEach((r, i) => {
      const record: RefRecord = { id: r.id, number: r.number, position: r.position, createdUs: us.get(r.id)!, cells: {} };
      this.write(record, sent[i]);
      this.world.records.push(record);
    });
  }

  private write(record: RefRecord, values: Values): void {
    for (const [apiName, value] of Object.entries(values)) {
      record.cells[apiName] = storedCell(this.world.fields.find((f) => f.api_name === apiName)!, value);
    }
  }
}
