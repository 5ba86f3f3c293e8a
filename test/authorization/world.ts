import { randomUUID } from 'node:crypto';
import { type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../core/testing.ts';
import { PEOPLE, type Caller, type People, type Person, type World } from '../../core/testing-matrix.ts';

export const PASSWORD = 'correct horse battery';

export async function createPeople(t: TestKernel): Promise<People> {
  // The first account of an instance is its admin.
  const people = {} as People;
  for (const p of PEOPLE) people[p] = await signUp(t, { name: p, password: PASSWORD });
  return people;
}

async function call(t: TestKernel, user: SignedUpUser, method: 'post' | 'put', path: string, body: object): Promise<any> {
  const res = await t.request[method](`/api/v1${path}`).set(user.auth).send(body);
  if (res.status >= 300) throw new Error(`${method.toUpperCase()} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function createPat(t: TestKernel, user: SignedUpUser, ws: string, scope: string): Promise<string> {
  return (await call(t, user, 'post', '/me/tokens', { name: `matrix ${scope}`, workspace_id: ws, scope })).token;
}

/** The outsider's workspace and what it holds: what rows name to prove another workspace's resources stay unseen. */
type Elsewhere = Pick<World, 'otherWs' | 'foreign'>;

/**
 * A workspace of everyone in their roles. `elsewhere`: the outsider's workspace of another world, shared rather than
 * built again (a row that needs a fresh world per caller only reads it).
 */
export async function buildWorld(t: TestKernel, people: People, opts: { vault?: boolean; elsewhere?: Elsewhere } = {}): Promise<World> {
  const ws = (await createWorkspace(t, people.admin, 'Matrix')).id;
  await t.db('workspace_members').insert(
    (['creator', 'editor', 'member', 'guest_in', 'guest_out'] as const).map((p) => ({
      workspace_id: ws,
      user_id: people[p].id,
      role: p.startsWith('guest') ? 'guest' : p,
      // Guests get their spaces below, once the spaces exist.
      space_ids: [],
    })),
  );
  const spaceS = (await call(t, people.creator, 'post', `/workspaces/${ws}/spaces`, { name: 'S' })).id;
  const spaceT = (await call(t, people.admin, 'post', `/workspaces/${ws}/spaces`, { name: 'T' })).id;
  await t.db('workspace_members').where({ workspace_id: ws, user_id: people.guest_in.id }).update({ space_ids: [spaceS] });
  await t.db('workspace_members').where({ workspace_id: ws, user_id: people.guest_out.id }).update({ space_ids: [spaceT] });
  const folderF = (await call(t, people.creator, 'post', `/workspaces/${ws}/spaces/${spaceS}/folders`, { name: 'F' })).id;
  const databaseD = (await call(t, people.creator, 'post', `/workspaces/${ws}/databases`, { name: 'D', space_id: spaceS })).id;
  await call(t, people.creator, 'post', `/workspaces/${ws}/databases/${databaseD}/fields`, { name: 'Notes', type: 'text' });
  const stage = await call(t, people.creator, 'post', `/workspaces/${ws}/databases/${databaseD}/fields`, { name: 'Stage', type: 'single_select', options: { choices: [{ label: 'Open' }] } });
  const optionOpen = stage.options.choices[0].id;
  const vault = opts.vault ? await buildVault(t, people, ws, spaceT, databaseD) : undefined;
  const [read, write, admin] = await Promise.all(['read', 'write', 'admin'].map((scope) => createPat(t, people.admin, ws, scope)));
  const pats = { read, write, admin };
  const { otherWs, foreign } = opts.elsewhere ?? (await buildElsewhere(t, people));
  return { ws, people, otherWs, spaceS, spaceT, folderF, databaseD, optionOpen, pats, vault, foreign };
}

async function buildElsewhere(t: TestKernel, people: People): Promise<Elsewhere> {
  const o = people.outsider;
  const otherWs = (await createWorkspace(t, o, 'Elsewhere')).id;
  const space = (await call(t, o, 'post', `/workspaces/${otherWs}/spaces`, { name: 'Theirs' })).id;
  const folder = (await call(t, o, 'post', `/workspaces/${otherWs}/spaces/${space}/folders`, { name: 'Theirs' })).id;
  const invite = (await call(t, o, 'post', `/workspaces/${otherWs}/invites`, { email: `elsewhere-${otherWs}@example.test`, role: 'member' })).id;
  await t.db('workspace_members').insert({ workspace_id: otherWs, user_id: people.member.id, role: 'member' });
  const database = (await call(t, o, 'post', `/workspaces/${otherWs}/databases`, { name: 'Theirs', space_id: space })).id;
  const grant = (await call(t, o, 'put', `/workspaces/${otherWs}/access`, { scope_type: 'space', scope_id: space, user_id: people.member.id, role: 'editor' })).id;
  return { otherWs, foreign: { space, folder, invite, grant, database } };
}

/** Vault in T, linked from D with a lookup through the link, and a record of D linking Vault's record titled with a marker. */
async function buildVault(t: TestKernel, people: People, ws: string, spaceT: string, databaseD: string): Promise<World['vault']> {
  const vault = (await call(t, people.admin, 'post', `/workspaces/${ws}/databases`, { name: 'Vault', space_id: spaceT })).id;
  await call(t, people.admin, 'post', `/workspaces/${ws}/relations`, { from_database_id: databaseD, to_database_id: vault, kind: 'many_to_many', from_field_name: 'Vault', to_field_name: 'D items' });
  await call(t, people.admin, 'post', `/workspaces/${ws}/databases/${databaseD}/fields`, { name: 'Vault titles', type: 'lookup', options: { link_field_id: 'vault', target_field_id: 'name' } });
  const marker = `vault-${randomUUID()}`;
  const secret = (await call(t, people.admin, 'post', `/workspaces/${ws}/databases/${vault}/records`, { values: { name: marker } })).id;
  await call(t, people.admin, 'post', `/workspaces/${ws}/databases/${databaseD}/records`, { values: { name: 'Links the vault', vault: [secret] } });
  return { database: vault, marker };
}

/** The Authorization header a caller sends in a world (none for anonymous). */
export function credentialOf(world: World, caller: Caller): Record<string, string> {
  if (caller === 'anonymous') return {};
  if (caller.startsWith('pat_')) return { Authorization: `Bearer ${world.pats[caller.slice(4) as 'read' | 'write' | 'admin']}` };
  return world.people[caller as Person].auth;
}

/** The person behind a caller (tokens belong to the workspace admin). */
export function personOf(caller: Caller): Person | null {
  if (caller === 'anonymous') return null;
  return caller.startsWith('pat_') ? 'admin' : (caller as Person);
}
