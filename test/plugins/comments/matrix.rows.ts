import { randomUUID } from 'node:crypto';
import { perWorld, type Caller, type MatrixRow, type SignedUpUser, type TestKernel, type World } from '../../../core/testing.ts';

/**
 * The comments plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'comments';

const content = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Matrix' }] }] };

async function call(t: TestKernel, user: SignedUpUser, path: string, body: object): Promise<Record<string, any>> {
  const res = await t.request.post(`/api/v1${path}`).set(user.auth).send(body);
  if (res.status !== 201) throw new Error(`${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const comments = (w: World, record: string, database = w.databaseD) => `/workspaces/${w.ws}/databases/${database}/records/${record}/comments`;
const recordOfD = async (t: TestKernel, w: World) => (await call(t, w.people.creator, `/workspaces/${w.ws}/databases/${w.databaseD}/records`, { values: { name: 'Discussed' } })).id as string;

/** Who writes the comment a caller then edits or deletes: its own person where it can comment (tokens: the admin), else the creator. */
function authorOf(w: World, caller: Caller): SignedUpUser {
  if (caller.startsWith('pat_')) return w.people.admin;
  if (['admin', 'creator', 'editor', 'member', 'guest_in'].includes(caller)) return w.people[caller as 'admin'];
  return w.people.creator;
}

/** The path of a new comment on a new record of D, written by `authorOf(caller)`. */
async function ownComment(t: TestKernel, w: World, caller: Caller): Promise<string> {
  const record = await recordOfD(t, w);
  const comment = await call(t, authorOf(w, caller), comments(w, record), { content });
  return `${comments(w, record)}/${comment.id}`;
}

/** Read by every caller of its read-only row: made once per world. */
const discussedRecord = perWorld(recordOfD);

export const rows: MatrixRow[] = [
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/{id}/comments',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: comments(w, await discussedRecord(t, w)) }),
    foreign: (w) => ({ path: comments(w, randomUUID(), w.foreign.database) }),
  },
  {
    // Members comment, a guest in its space too; a read token does not write.
    route: 'POST /workspaces/{ws}/databases/{db}/records/{id}/comments',
    expect: '404 201 201 201 201 201 404 403 201 201 404 401',
    request: async (w, _c, t) => ({ path: comments(w, await recordOfD(t, w)), body: { content } }),
    foreign: (w) => ({ path: comments(w, randomUUID(), w.foreign.database), body: { content } }),
  },
  {
    // Each caller edits its own comment.
    route: 'PATCH /workspaces/{ws}/databases/{db}/records/{id}/comments/{cid}',
    expect: '404 200 200 200 200 200 404 403 200 200 404 401',
    request: async (w, caller, t) => ({ path: await ownComment(t, w, caller), body: { content } }),
    foreign: (w) => ({ path: `${comments(w, randomUUID(), w.foreign.database)}/${randomUUID()}`, body: { content } }),
  },
  {
    route: 'DELETE /workspaces/{ws}/databases/{db}/records/{id}/comments/{cid}',
    expect: '404 204 204 204 204 204 404 403 204 204 404 401',
    request: async (w, caller, t) => ({ path: await ownComment(t, w, caller) }),
    foreign: (w) => ({ path: `${comments(w, randomUUID(), w.foreign.database)}/${randomUUID()}` }),
  },
];
