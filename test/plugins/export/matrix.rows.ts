import type { MatrixRow, SignedUpUser, TestKernel, World } from '../../../core/testing.ts';

/**
 * The export plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * CSV export is for whoever reads the database (guests in its space, read tokens); workspace exports for admins
 * (the tokens are the admin's: only the `admin` scope reaches them).
 */
export const plugin = 'export';

/** A finished export per workspace, made once: its job runs once, not once per caller. */
const finished = new Map<string, Promise<string>>();
function finishedExport(t: TestKernel, admin: SignedUpUser, ws: string): Promise<string> {
  if (!finished.has(ws)) {
    finished.set(ws, (async () => {
      const res = await t.request.post(`/api/v1/workspaces/${ws}/exports`).set(admin.auth);
      if (res.status !== 202) throw new Error(`export failed: ${res.status} ${JSON.stringify(res.body)}`);
      for (let i = 0; i < 600; i++) {
        const state = await t.request.get(`/api/v1/workspaces/${ws}/exports/${res.body.id}`).set(admin.auth);
        if (state.body.status === 'succeeded') return res.body.id as string;
        if (state.body.status === 'failed') throw new Error(`export failed: ${state.body.error}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('export never finished');
    })());
  }
  return finished.get(ws)!;
}

const ours = (w: World, t: TestKernel) => finishedExport(t, w.people.admin, w.ws);
/** The outsider's export of its own workspace, named under this one. */
const theirs = async (w: World, t: TestKernel, suffix = '') => ({ path: `/workspaces/${w.ws}/exports/${await finishedExport(t, w.people.outsider, w.otherWs)}${suffix}` });

export const rows: MatrixRow[] = [
  {
    route: 'GET /workspaces/{ws}/databases/{db}/export.csv',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/export.csv` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/export.csv` }),
  },
  {
    route: 'POST /workspaces/{ws}/exports',
    expect: '404 202 403 403 403 403 403 403 403 202 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/exports` }),
  },
  {
    route: 'GET /workspaces/{ws}/exports',
    expect: '404 200 403 403 403 403 403 403 403 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/exports` }),
  },
  {
    route: 'GET /workspaces/{ws}/exports/{id}',
    expect: '404 200 403 403 403 403 403 403 403 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/exports/${await ours(w, t)}` }),
    foreign: (w, t) => theirs(w, t),
  },
  {
    route: 'GET /workspaces/{ws}/exports/{id}/download',
    expect: '404 200 403 403 403 403 403 403 403 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/exports/${await ours(w, t)}/download` }),
    foreign: (w, t) => theirs(w, t, '/download'),
  },
];
