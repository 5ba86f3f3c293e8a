import fs from 'node:fs';
import pg from 'pg';

/** A process's resident memory in bytes (Linux), or null where /proc is not there. */
export function rssOf(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far (Linux), or null where /proc is not there. */
export function cpuOf(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of stat (11 and 12 after the command), in clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** The PostgreSQL backends of the database (their process ids) whose current or last statement mentions `table`. */
export async function backendsOf(client: pg.Client, table: string): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND strpos(query, $1) > 0', [table]);
  return rows.map((r) => r.pid);
}

/** CPU seconds of every backend of the database so far (Linux, PostgreSQL on this machine), by process id. */
export async function backendsCpu(client: pg.Client): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  return new Map(rows.flatMap((r) => {
    const cpu = cpuOf(r.pid);
    return cpu === null ? [] : [[r.pid, cpu]];
  }));
}

/**
 * Runs `work` while watching the backends that run statements on `table` (sampled every 100 ms): what it returns, and
 * the CPU seconds those backends spent meanwhile (null when PostgreSQL is not on this machine or `table` is empty).
 * The machine is shared: CPU seconds say what the work costs whatever else loads it, where wall time does not.
 */
export async function withBackendsCpu<T>(url: string, table: string, work: () => Promise<T>): Promise<{ result: T; dbCpu: number | null }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const before = await backendsCpu(client);
    const readers = new Set<number>();
    let sampling = Promise.resolve();
    const sampler = setInterval(() => {
      sampling = sampling.then(async () => {
        for (const pid of await backendsOf(client, table)) readers.add(pid);
      });
    }, 100);
    const result = await work().finally(() => clearInterval(sampler));
    await sampling;
    const after = await backendsCpu(client);
    let dbCpu: number | null = null;
    for (const pid of table ? readers : []) {
      const then = before.get(pid);
      const now = after.get(pid);
      if (then !== undefined && now !== undefined) dbCpu = (dbCpu ?? 0) + now - then;
    }
    return { result, dbCpu };
  } finally {
    await client.end();
  }
}
