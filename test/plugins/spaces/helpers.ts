import type { TestKernel, SignedUpUser } from '../../../core/testing.ts';

export type Auth = { Authorization: string };

/** Makes `user` a member of `ws` directly (there are no invites yet). */
export async function join(t: TestKernel, ws: string, user: SignedUpUser, role: string, spaceIds: string[] = []): Promise<void> {
  await t.db('workspace_members').insert({ workspace_id: ws, user_id: user.id, role, space_ids: spaceIds });
}

async function created(t: TestKernel, auth: Auth, path: string, body: object): Promise<any> {
  const res = await t.request.post(`/api/v1${path}`).set(auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function createSpace(t: TestKernel, ws: string, auth: Auth, name = 'Space'): Promise<{ id: string; name: string; created_by: string }> {
  return created(t, auth, `/workspaces/${ws}/spaces`, { name });
}

export async function createFolder(t: TestKernel, ws: string, space: string, auth: Auth, name = 'Folder', parentId?: string): Promise<{ id: string; parent_id: string | null }> {
  return created(t, auth, `/workspaces/${ws}/spaces/${space}/folders`, { name, ...(parentId ? { parent_id: parentId } : {}) });
}

/** A personal access token of `user` for `ws`. */
export async function patFor(t: TestKernel, user: SignedUpUser, ws: string, scope: 'read' | 'write' | 'admin'): Promise<Auth> {
  const token = await created(t, user.auth, '/me/tokens', { name: `pat ${scope}`, workspace_id: ws, scope });
  return { Authorization: `Bearer ${token.token}` };
}
