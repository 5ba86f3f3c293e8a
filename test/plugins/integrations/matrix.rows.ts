import type { MatrixRow, TestKernel, World } from '../../../core/testing.ts';
import { sealContext } from '../../../plugins/integrations/connections.service.ts';

/**
 * The integrations plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * Connections are for creators and admins; a `read` token acts below a creator, so it reaches none of them. The
 * connections here are stored directly (a GitHub one whose token no GitHub knows), so no row depends on reaching a
 * provider: its test answers `ok: false` either way.
 */
export const plugin = 'integrations';

const connections = (ws: string) => `/workspaces/${ws}/connections`;

/** A GitHub connection of `ws` with a sealed token and one delivery in its inbox. */
async function made(t: TestKernel, ws: string): Promise<{ id: string; delivery: string }> {
  const id = crypto.randomUUID();
  const box = t.kernel.container.resolverFor('kernel')('secrets').get();
  await t.db('integration_connections').insert({
    id,
    workspace_id: ws,
    provider: 'github',
    name: 'Matrix',
    status: 'active',
    credentials: box.seal(JSON.stringify({ token: 'not-a-real-token' }), sealContext(id, 'credentials')),
    webhook_secret: box.seal('matrix-signing-secret', sealContext(id, 'webhook_secret')),
  });
  const [delivery] = await t.db('integration_deliveries')
    .insert({ connection_id: id, workspace_id: ws, provider: 'github', delivery_id: `matrix-${id}`, event: 'ping', payload: '{}', status: 'processed' })
    .returning('id');
  return { id, delivery: delivery.id };
}

const ours = async (w: World, t: TestKernel, suffix = '') => {
  const c = await made(t, w.ws);
  return { path: `${connections(w.ws)}/${c.id}${suffix.replace('{did}', c.delivery)}` };
};
/** The outsider's connection, named under this workspace. */
const theirs = async (w: World, t: TestKernel, suffix = '') => {
  const c = await made(t, w.otherWs);
  return { path: `${connections(w.ws)}/${c.id}${suffix.replace('{did}', c.delivery)}` };
};

const CREATORS = (ok: number, read = 403) => `404 ${ok} ${ok} 403 403 403 403 ${read} ${ok} ${ok} 404 401`;

export const rows: MatrixRow[] = [
  { route: 'GET /integrations', expect: '200 200 200 200 200 200 200 200 200 200 200 401', request: () => ({ path: '/integrations' }) },
  // Allowed callers reach validation: a GitHub connection without its token is refused before GitHub is asked.
  { route: 'POST /workspaces/{ws}/connections', expect: CREATORS(422), request: (w) => ({ path: connections(w.ws), body: { provider: 'github', name: 'No token' } }) },
  { route: 'GET /workspaces/{ws}/connections', expect: CREATORS(200), request: (w) => ({ path: connections(w.ws) }) },
  { route: 'GET /workspaces/{ws}/connections/{id}', expect: CREATORS(200), request: (w, _c, t) => ours(w, t), foreign: (w, t) => theirs(w, t) },
  {
    route: 'PATCH /workspaces/{ws}/connections/{id}',
    expect: CREATORS(200),
    request: async (w, _c, t) => ({ ...(await ours(w, t)), body: { name: 'Renamed' } }),
    foreign: async (w, t) => ({ ...(await theirs(w, t)), body: { name: 'Renamed' } }),
  },
  { route: 'POST /workspaces/{ws}/connections/{id}/test', expect: CREATORS(200), request: (w, _c, t) => ours(w, t, '/test'), foreign: (w, t) => theirs(w, t, '/test') },
  { route: 'DELETE /workspaces/{ws}/connections/{id}', expect: CREATORS(204), request: (w, _c, t) => ours(w, t), foreign: (w, t) => theirs(w, t) },
  { route: 'GET /workspaces/{ws}/connections/{id}/deliveries', expect: CREATORS(200), request: (w, _c, t) => ours(w, t, '/deliveries'), foreign: (w, t) => theirs(w, t, '/deliveries') },
  {
    route: 'POST /workspaces/{ws}/connections/{id}/deliveries/{did}/replay',
    expect: CREATORS(202),
    request: (w, _c, t) => ours(w, t, '/deliveries/{did}/replay'),
    foreign: (w, t) => theirs(w, t, '/deliveries/{did}/replay'),
  },
  // Signed in: GitHub connects with a token, not OAuth, so no callback of its answers (an OAuth provider's state is
  // bound to the user who started the flow: test/plugins/integrations/oauth.test.ts).
  {
    route: 'GET /integrations/{provider}/oauth/callback',
    expect: '404 404 404 404 404 404 404 404 404 404 404 401',
    request: () => ({ path: '/integrations/github/oauth/callback', query: { state: 'a-state-nobody-issued', code: 'x' } }),
  },
  // No credential: an unsigned post is refused alike for everyone, and nothing is stored.
  {
    route: 'POST /integrations/{provider}/webhook/{connection_id}',
    expect: '401 401 401 401 401 401 401 401 401 401 401 401',
    request: async (w, _c, t) => ({ path: `/integrations/github/webhook/${(await made(t, w.ws)).id}`, body: { zen: 'unsigned' } }),
  },
];
