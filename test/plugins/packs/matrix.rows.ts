import type { MatrixRow, SignedUpUser, TestKernel, World } from '../../../core/testing.ts';

/**
 * The packs plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'packs';

let unique = 0;

/** A pack of one space under a name nobody used. */
const tinyPack = (name = `Matrix pack ${unique++}`) => ({
  format: 'tessera-pack',
  format_version: 1,
  name,
  version: '1.0.0',
  requires: {},
  resources: { space: [{ ref: 'space', name }] },
});

async function call(t: TestKernel, user: SignedUpUser, path: string, body: object): Promise<Record<string, any>> {
  const res = await t.request.post(`/api/v1${path}`).set(user.auth).send(body);
  if (res.status !== 201) throw new Error(`${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const installIn = (t: TestKernel, user: SignedUpUser, ws: string) => call(t, user, `/workspaces/${ws}/packs/install`, { pack: tinyPack() });
const published = (t: TestKernel, w: World) => call(t, w.people.admin, `/workspaces/${w.ws}/marketplace/packs`, { pack: tinyPack(), public: true });

export const rows: MatrixRow[] = [
  {
    // Creator on every space named: a member or a read token is refused by the owner of spaces, after the route let it in.
    route: 'POST /workspaces/{ws}/packs/export',
    expect: '404 200 200 403 403 403 403 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/packs/export`, body: { space_ids: [w.spaceS] } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/packs/export`, body: { space_ids: [w.foreign.space] } }),
  },
  {
    route: 'POST /workspaces/{ws}/packs/install',
    expect: '404 201 201 403 403 403 403 403 201 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/packs/install`, body: { pack: tinyPack() } }),
  },
  { route: 'GET /workspaces/{ws}/packs/installs', expect: '404 200 200 403 403 403 403 403 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/packs/installs` }) },
  {
    route: 'DELETE /workspaces/{ws}/packs/installs/{id}',
    expect: '404 200 200 403 403 403 403 403 200 200 404 401',
    request: async (w, _caller, t) => ({ path: `/workspaces/${w.ws}/packs/installs/${(await installIn(t, w.people.admin, w.ws)).install_id}` }),
    foreign: async (w, t) => ({ path: `/workspaces/${w.ws}/packs/installs/${(await installIn(t, w.people.outsider, w.otherWs)).install_id}` }),
  },
  { route: 'GET /packs/kinds', expect: '200 200 200 200 200 200 200 200 200 200 200 401', request: () => ({ path: '/packs/kinds' }) },
  { route: 'GET /templates', expect: '200 200 200 200 200 200 200 200 200 200 200 200', request: () => ({ path: '/templates' }) },
  { route: 'GET /templates/{id}', expect: '200 200 200 200 200 200 200 200 200 200 200 200', request: () => ({ path: '/templates/crm' }) },
  {
    route: 'POST /workspaces/{ws}/templates/{id}/apply',
    expect: '404 200 200 403 403 403 403 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/templates/crm/apply`, body: { dry_run: true } }),
  },
  {
    route: 'POST /workspaces/{ws}/marketplace/packs',
    expect: '404 201 403 403 403 403 403 403 403 201 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/marketplace/packs`, body: { pack: tinyPack() } }),
  },
  { route: 'GET /marketplace/packs', expect: '200 200 200 200 200 200 200 200 200 200 200 401', request: () => ({ path: '/marketplace/packs' }) },
  {
    route: 'GET /marketplace/packs/{id}',
    expect: '200 200 200 200 200 200 200 200 200 200 200 401',
    request: async (w, _caller, t) => ({ path: `/marketplace/packs/${(await published(t, w)).id}` }),
  },
  {
    route: 'POST /workspaces/{ws}/marketplace/packs/{id}/install',
    expect: '404 200 200 403 403 403 403 403 200 200 404 401',
    request: async (w, _caller, t) => ({ path: `/workspaces/${w.ws}/marketplace/packs/${(await published(t, w)).id}/install`, body: { dry_run: true } }),
  },
  { route: 'GET /public/gallery', expect: '200 200 200 200 200 200 200 200 200 200 200 200', request: () => ({ path: '/public/gallery' }) },
];
