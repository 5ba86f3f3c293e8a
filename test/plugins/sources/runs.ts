import type { TestKernel } from '../../../core/testing.ts';

type Auth = Record<string, string>;

/** A run of a source once it has ended (neither queued nor running), as `GET …/runs` shows it. */
export async function endedRun(t: TestKernel, auth: Auth, ws: string, sourceId: string, runId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 400; i++) {
    const runs = (await t.request.get(`/api/v1/workspaces/${ws}/sources/${sourceId}/runs`).set(auth).expect(200)).body.data as Array<Record<string, any>>;
    const run = runs.find((r) => r.id === runId);
    if (run && run.status !== 'queued' && run.status !== 'running') return run;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the run did not end');
}

/** Starts a sync of a source (`body`: `full`) and waits for its run to end. */
export async function syncedRun(t: TestKernel, auth: Auth, ws: string, sourceId: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const { run_id } = (await t.request.post(`/api/v1/workspaces/${ws}/sources/${sourceId}/sync`).set(auth).send(body).expect(202)).body;
  return endedRun(t, auth, ws, sourceId, run_id);
}

/** A database's live records, up to 200. */
export async function recordsOf(t: TestKernel, auth: Auth, ws: string, databaseId: string): Promise<Array<{ id: string; values: Record<string, any> }>> {
  return (await t.request.get(`/api/v1/workspaces/${ws}/databases/${databaseId}/records?limit=200`).set(auth).expect(200)).body.data;
}
