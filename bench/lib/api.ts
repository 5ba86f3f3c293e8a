import { randomUUID } from 'node:crypto';

export type Headers = Record<string, string>;

/** One JSON request through fetch, for set-up (not timed). */
export async function call(url: string, method: string, headers: Headers = {}, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Like `call`, but anything other than `status` is a set-up failure. */
export async function expect(status: number, what: string, url: string, method: string, headers: Headers = {}, body?: unknown): Promise<any> {
  const res = await call(url, method, headers, body);
  if (res.status !== status) throw new Error(`${what} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface Person {
  id: string;
  session: Headers;
}

export async function signUp(api: string, name: string): Promise<Person> {
  const body = await expect(201, 'sign-up', `${api}/auth/sign-up`, 'POST', {}, { email: `bench-${randomUUID()}@example.test`, name, password: 'bench password 123' });
  return { id: body.user.id, session: { Authorization: `Bearer ${body.token}` } };
}

/** A user signed up, invited by `admin` with `role` (a guest: into `spaceIds`) and accepted, all through the API. */
export async function addMember(api: string, admin: Headers, ws: string, role: string, spaceIds?: string[]): Promise<Person> {
  const email = `bench-${role}-${randomUUID()}@example.test`;
  const signedUp = await expect(201, 'member sign-up', `${api}/auth/sign-up`, 'POST', {}, { email, name: `Bench ${role}`, password: 'bench password 123' });
  const session = { Authorization: `Bearer ${signedUp.token}` };
  const invite = await expect(201, 'invite', `${api}/workspaces/${ws}/invites`, 'POST', admin, { email, role, ...(spaceIds ? { space_ids: spaceIds } : {}) });
  await expect(200, 'invite acceptance', `${api}/invites/${String(invite.accept_url).split('/').pop()}/accept`, 'POST', session);
  return { id: signedUp.user.id, session };
}

/** A personal access token of `person` for workspace `ws`, as an Authorization header. */
export async function createToken(api: string, person: Person, ws: string, scope: 'read' | 'write' | 'admin'): Promise<{ id: string; header: Headers }> {
  const body = await expect(201, 'token creation', `${api}/me/tokens`, 'POST', person.session, { name: 'bench', workspace_id: ws, scope });
  return { id: body.id, header: { Authorization: `Bearer ${body.token}` } };
}
