import { joinWorkspace, signUp, type MatrixRow, type SignedUpUser, type TestKernel, type World } from '../../../core/testing.ts';
import { finished } from './helpers.ts';

/**
 * The gdpr plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * Exports are their requester's: `/me` ones the member's, workspace ones the admin's (whose tokens these are).
 */
export const plugin = 'gdpr';

/** A finished export, made once per requester and path: its job runs once, not once per caller. */
const ready = new Map<string, Promise<string>>();
function readyExport(t: TestKernel, by: SignedUpUser, create: string, status: (id: string) => string): Promise<string> {
  const key = `${by.id} ${create}`;
  if (!ready.has(key)) {
    ready.set(key, (async () => {
      const res = await t.request.post(`/api/v1${create}`).set(by.auth);
      if (res.status !== 202) throw new Error(`export failed: ${res.status} ${JSON.stringify(res.body)}`);
      await finished(t, `/api/v1${status(res.body.id)}`, by.auth);
      return res.body.id as string;
    })());
  }
  return ready.get(key)!;
}
const mine = (w: World, t: TestKernel) => readyExport(t, w.people.member, '/me/data-export', (id) => `/me/data-exports/${id}`);
const adminsOf = (w: World, t: TestKernel) => readyExport(t, w.people.admin, `/workspaces/${w.ws}/members/${w.people.member.id}/data-export`, (id) => `/workspaces/${w.ws}/data-exports/${id}`);
/** The outsider's export in its own workspace, named under this one. */
const foreignExport = async (w: World, t: TestKernel, suffix = '') => ({
  path: `/workspaces/${w.ws}/data-exports/${await readyExport(t, w.people.outsider, `/workspaces/${w.otherWs}/members/${w.people.outsider.id}/data-export`, (id) => `/workspaces/${w.otherWs}/data-exports/${id}`)}${suffix}`,
});

/** A new member of the workspace for each call that erases one: every caller has someone to erase. */
async function newMember(w: World, t: TestKernel): Promise<SignedUpUser> {
  const user = await signUp(t, { name: 'Erasable Member' });
  await joinWorkspace(t, w.people.admin, w.ws, user, 'member');
  return user;
}

export const rows: MatrixRow[] = [
  { route: 'POST /me/data-export', expect: '202 202 202 202 202 202 202 403 403 403 202 401', request: () => ({ path: '/me/data-export' }) },
  { route: 'GET /me/data-exports/{id}', expect: '404 404 404 404 200 404 404 403 403 403 404 401', request: async (w, _c, t) => ({ path: `/me/data-exports/${await mine(w, t)}` }) },
  { route: 'GET /me/data-exports/{id}/download', expect: '404 404 404 404 200 404 404 403 403 403 404 401', request: async (w, _c, t) => ({ path: `/me/data-exports/${await mine(w, t)}/download` }) },
  {
    route: 'POST /workspaces/{ws}/members/{user_id}/data-export',
    expect: '404 202 403 403 403 403 403 403 403 202 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/members/${w.people.member.id}/data-export` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/members/${w.people.outsider.id}/data-export` }),
  },
  {
    route: 'GET /workspaces/{ws}/data-exports/{id}',
    expect: '404 200 403 403 403 403 403 403 403 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/data-exports/${await adminsOf(w, t)}` }),
    foreign: (w, t) => foreignExport(w, t),
  },
  {
    route: 'GET /workspaces/{ws}/data-exports/{id}/download',
    expect: '404 200 403 403 403 403 403 403 403 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/data-exports/${await adminsOf(w, t)}/download` }),
    foreign: (w, t) => foreignExport(w, t, '/download'),
  },
  {
    route: 'POST /workspaces/{ws}/members/{user_id}/erase',
    expect: '404 200 403 403 403 403 403 403 403 200 404 401',
    request: async (w, _c, t) => {
      const user = await newMember(w, t);
      return { path: `/workspaces/${w.ws}/members/${user.id}/erase`, body: { confirm: user.email } };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/members/${w.people.outsider.id}/erase`, body: { confirm: w.people.outsider.email } }),
  },
  {
    route: 'POST /admin/users/{id}/erase',
    expect: '200 403 403 403 403 403 403 403 403 403 403 401',
    request: async (_w, _c, t) => {
      const user = await signUp(t, { name: 'Erasable User' });
      return { path: `/admin/users/${user.id}/erase`, body: { confirm: user.email } };
    },
  },
  { route: 'GET /admin/erasures', expect: '200 403 403 403 403 403 403 403 403 403 403 401', request: () => ({ path: '/admin/erasures' }) },
];
