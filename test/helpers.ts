import type { TestKernel } from '../core/testing.ts';

let counter = 0;

export interface SignedUpUser {
  id: string;
  email: string;
  name: string;
  token: string;
  auth: { Authorization: string };
}

/** Signs up a fresh user through the API and returns its session. */
export async function signUp(t: TestKernel, overrides: { email?: string; name?: string; password?: string } = {}): Promise<SignedUpUser> {
  const email = overrides.email ?? `user${Date.now()}${counter++}@example.test`;
  const res = await t.request
    .post('/api/v1/auth/sign-up')
    .send({ email, name: overrides.name ?? 'Test User', password: overrides.password ?? 'correct horse battery' });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, email, name: res.body.user.name, token: res.body.token, auth: { Authorization: `Bearer ${res.body.token}` } };
}

export interface CreatedWorkspace {
  id: string;
  name: string;
  role: string;
}

/** Creates a workspace through the API; `user` becomes its admin. */
export async function createWorkspace(t: TestKernel, user: SignedUpUser, name = `Workspace ${counter++}`): Promise<CreatedWorkspace> {
  const res = await t.request.post('/api/v1/workspaces').set(user.auth).send({ name });
  if (res.status !== 201) throw new Error(`workspace creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
