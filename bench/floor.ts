/**
 * The floor of our own stack (issue 21): bare koa and pg, no kernel, answering a records table's list page and one
 * record with the same kind of SQL Tessera runs, the rows as JSON. Run by bench/records.ts in its own process, like
 * the server, so the ratio of Tessera to it is what the kernel, the plugins and the value encoding cost.
 * Environment: BENCH_DATABASE_URL, BENCH_SCHEMA, and the table's `FLOOR_*` (bench/floor-sql.ts). Tells `{ port }`.
 */
import Koa from 'koa';
import pg from 'pg';
import { floorStatements, floorTableFromEnv } from './floor-sql.ts';

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 4, options: `-c search_path=${process.env.BENCH_SCHEMA},public` });
const { list, one } = floorStatements(floorTableFromEnv(process.env));
const UUID = /^[0-9a-f-]{36}$/;

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/list') {
    const { rows } = await pool.query({ name: 'floor-list', text: list, values: [Number(ctx.query.limit ?? 100) + 1] });
    ctx.body = { data: rows.slice(0, -1), next_cursor: rows.length > 100 ? 'more' : null };
  } else if (ctx.path.startsWith('/one/') && UUID.test(ctx.path.slice(5))) {
    const { rows } = await pool.query({ name: 'floor-one', text: one, values: [ctx.path.slice(5)] });
    ctx.status = rows.length ? 200 : 404;
    ctx.body = rows[0] ?? { error: 'not found' };
  } else ctx.status = 404;
});
const server = app.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
process.on('message', async (m) => {
  if (m !== 'stop') return;
  server.close();
  await pool.end();
  process.exit(0);
});
