import pg from 'pg';
import type { FloorStatements } from '../floor-sql.ts';
import type { Answer, Requester } from './client.ts';

const UUID = /^[0-9a-f-]{36}$/;

/**
 * PostgreSQL alone (issue 21): the floor's statements run from the bench's own process on one connection, prepared,
 * with no HTTP and no server between: what the database and its driver take to answer the same question, the least
 * any request for it can cost. It answers the floor's paths (`/list?limit=`, `/one/{id}`), `/query?status=&limit=` and
 * `/search?q=&limit=`
 * (bench/floor-sql.ts), so that it is sampled in turn with the servers like one of them.
 */
export class PostgresAlone implements Requester {
  private constructor(
    private readonly client: pg.Client,
    private readonly statements: FloorStatements,
  ) {}

  static async connect(url: string, schema: string, statements: FloorStatements): Promise<PostgresAlone> {
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
    await client.connect();
    return new PostgresAlone(client, statements);
  }

  async request(_method: string, path: string): Promise<Answer> {
    const url = new URL(path, 'http://alone');
    const started = performance.now();
    const limit = Number(url.searchParams.get('limit') ?? 100) + 1;
    let rows: unknown[];
    if (url.pathname === '/list') rows = (await this.client.query({ name: 'alone-list', text: this.statements.list, values: [limit] })).rows;
    else if (url.pathname === '/query') rows = (await this.client.query({ name: 'alone-query', text: this.statements.query, values: [url.searchParams.get('status'), limit] })).rows;
    else if (url.pathname === '/search') rows = (await this.client.query({ name: 'alone-search', text: this.statements.search, values: [`%${url.searchParams.get('q')}%`, limit] })).rows;
    else if (url.pathname.startsWith('/one/') && UUID.test(url.pathname.slice(5))) rows = (await this.client.query({ name: 'alone-one', text: this.statements.one, values: [url.pathname.slice(5)] })).rows;
    else return { status: 404, text: `PostgreSQL alone answers no ${path}`, ms: 0 };
    return { status: rows.length > 0 ? 200 : 404, text: '', ms: performance.now() - started };
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
