import type { TestKernel } from './testing.ts';

let counter = 0;

/** A user signed up through the API, with the bearer header of its session. */
export interface SignedUpUser {
  id: string;
  email: string;
  name: string;
  token: string;
  auth: { Authorization: string };
}

export interface CreatedWorkspace {
  id: string;
  name: string;
  role: string;
}

/**
 * Signs up a fresh user through the API (the auth plugin's sign-up route) and returns its session.
 * The first account of an instance is its admin.
 */
export async function signUp(t: TestKernel, overrides: { email?: string; name?: string; password?: string } = {}): Promise<SignedUpUser> {
  const email = overrides.email ?? `user${Date.now()}${counter++}@example.test`;
  const res = await t.request
    .post('/api/v1/auth/sign-up')
    .send({ email, name: overrides.name ?? 'Test User', password: overrides.password ?? 'correct horse battery' });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, email, name: res.body.user.name, token: res.body.token, auth: { Authorization: `Bearer ${res.body.token}` } };
}

/** Creates a workspace through the API (the workspaces plugin); `user` becomes its admin. */
export async function createWorkspace(t: TestKernel, user: SignedUpUser, name = `Workspace ${counter++}`): Promise<CreatedWorkspace> {
  const res = await t.request.post('/api/v1/workspaces').set(user.auth).send({ name });
  if (res.status !== 201) throw new Error(`workspace creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The membership an accepted invite answers with. */
export interface JoinedMember {
  role: string;
  space_ids: string[];
  [member: string]: unknown;
}

/**
 * Makes `user` a member of `workspaceId` with `role` the way people join: `admin` invites, `user` accepts. A guest
 * names the spaces it may see in `spaceIds`.
 */
export async function joinWorkspace(t: TestKernel, admin: SignedUpUser, workspaceId: string, user: SignedUpUser, role: string, spaceIds?: string[]): Promise<JoinedMember> {
  const invite = await t.request.post(`/api/v1/workspaces/${workspaceId}/invites`).set(admin.auth).send({ email: user.email, role, ...(spaceIds ? { space_ids: spaceIds } : {}) });
  if (invite.status !== 201) throw new Error(`invite failed: ${invite.status} ${JSON.stringify(invite.body)}`);
  const token = String(invite.body.accept_url).split('/').pop();
  const accepted = await t.request.post(`/api/v1/invites/${token}/accept`).set(user.auth);
  if (accepted.status !== 200) throw new Error(`accepting the invite failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return accepted.body;
}
