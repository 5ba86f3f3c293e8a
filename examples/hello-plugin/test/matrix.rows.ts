import type { MatrixRow, SignedUpUser, TestKernel, World } from 'tessera/testing';

/**
 * This plugin's rows of the authorization matrix, one per route: every kind of caller against one shared
 * workspace. Copied to test/plugins/<id>/matrix.rows.ts by `npm run new-plugin`, where the matrix
 * (test/authorization) finds the rows of every built-in plugin. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'hello';

let unique = 0;

/** A greeting by `author` in `ws`, under a name nobody used: each call of a row acts on one of its own. */
async function greetingBy(t: TestKernel, author: SignedUpUser, ws: string): Promise<string> {
  const res = await t.request.post(`/api/v1/workspaces/${ws}/hello/greetings`).set(author.auth).send({ name: `Matrix ${unique++}` });
  if (res.status !== 201) throw new Error(`greeting failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

const byCreator = async (w: World, t: TestKernel) => `/workspaces/${w.ws}/hello/greetings/${await greetingBy(t, w.people.creator, w.ws)}`;
/** Another workspace's greeting named under this one: 404 even for this workspace's admin. */
const foreign = async (w: World, t: TestKernel) => ({ path: `/workspaces/${w.ws}/hello/greetings/${await greetingBy(t, w.people.outsider, w.otherWs)}` });

export const rows: MatrixRow[] = [
  { route: 'GET /workspaces/{ws}/hello/greetings', expect: '404 200 200 200 200 403 403 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/hello/greetings` }) },
  {
    route: 'POST /workspaces/{ws}/hello/greetings',
    expect: '404 201 201 201 201 403 403 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/hello/greetings`, body: { name: `Matrix ${unique++}` } }),
  },
  {
    route: 'GET /workspaces/{ws}/hello/greetings/{id}',
    expect: '404 200 200 200 200 403 403 200 200 200 404 401',
    request: async (w, _caller, t) => ({ path: await byCreator(w, t) }),
    foreign,
  },
  {
    // Its author (creator) or an admin; a write token acts as a creator who did not write it.
    route: 'DELETE /workspaces/{ws}/hello/greetings/{id}',
    expect: '404 204 204 403 403 403 403 403 403 204 404 401',
    request: async (w, _caller, t) => ({ path: await byCreator(w, t) }),
    foreign,
  },
];
