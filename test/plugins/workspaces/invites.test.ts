import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, joinWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { hashSecret } from '../../../core/secrets.ts';
import { createPat } from '../tokens/helpers.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { corePlugins, eventsNamed, invite, spaceProbe, tokenOf } from './fixtures.ts';

const PUBLIC_URL = 'https://tessera.example/app';

describe('workspace invites', () => {
  let t: TestKernel;
  let ann: SignedUpUser;
  const spaces = spaceProbe();
  const accept = (token: string, user: SignedUpUser) => t.request.post(`/api/v1/invites/${token}/accept`).set(user.auth);
  const outboxFor = (to: string) => t.db('mail_outbox').where({ to }).orderBy('created_at').select('subject', 'text');

  before(async () => {
    // A trailing slash in publicUrl must not double the slash in links.
    t = await startTestKernel({ plugins: [...corePlugins, spaces.plugin], config: { publicUrl: `${PUBLIC_URL}/` } });
    ann = await signUp(t, { name: 'Ann Admin' });
  });
  after(() => t.stop());

  it('creates a pending invite with a one-time accept link, stores only its hash, and mails it to the invitee', async () => {
    const ws = await createWorkspace(t, ann, 'Acme Research');
    const res = await t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(ann.auth).send({ email: '  Carol@Example.test ', role: 'editor' });
    assert.equal(res.status, 201);
    const body = res.body;
    assert.deepEqual(
      { ...body, id: undefined, created_at: undefined, sent_at: undefined, accept_url: undefined },
      {
        id: undefined,
        workspace_id: ws.id,
        email: 'Carol@Example.test',
        role: 'editor',
        space_ids: [],
        status: 'pending',
        invited_by: ann.id,
        accepted_by: null,
        created_at: undefined,
        sent_at: undefined,
        accepted_at: null,
        revoked_at: null,
        accept_url: undefined,
      },
    );
    const match = /^https:\/\/tessera\.example\/app\/invites\/([0-9A-Za-z]{32})$/.exec(body.accept_url);
    assert.ok(match, `accept_url ${body.accept_url}`);
    const token = match[1];

    const [stored] = await t.db('workspace_invites').where({ id: body.id });
    assert.equal(stored.token_hash, hashSecret(token));
    assert.equal(JSON.stringify(stored).includes(token), false, 'the token itself is not stored');

    const listed = await t.request.get(`/api/v1/workspaces/${ws.id}/invites`).set(ann.auth);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((i: { id: string; accept_url: unknown }) => [i.id, i.accept_url]), [[body.id, null]]);

    const [mailed] = await waitUntil('the invite mail', async () => {
      const rows = await outboxFor('Carol@Example.test');
      return rows.length > 0 && rows;
    });
    assert.match(mailed.subject, /Acme Research/);
    assert.match(mailed.subject, /Ann Admin/);
    assert.ok(mailed.text.includes(body.accept_url), mailed.text);

    const [event] = await eventsNamed(t, 'invite.created', ws.id);
    assert.equal(event.actor_id, ann.id);
    assert.equal(event.payload.invite.id, body.id);
    assert.equal(JSON.stringify(event.payload).includes(token), false, 'events never carry the token');
  });

  it('validates the body: email, roles and a guest\'s spaces', async () => {
    const ws = await createWorkspace(t, ann);
    const other = await createWorkspace(t, ann);
    const space = spaces.add(ws.id);
    const foreign = spaces.add(other.id);
    const post = (body: Record<string, unknown>) => t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(ann.auth).send(body);
    const pointers = (res: { body: { errors?: Array<{ pointer: string }> } }) => res.body.errors?.map((e) => e.pointer);

    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ email: 'g@example.test', role: 'guest' }, ['/space_ids']],
      [{ email: 'g@example.test', role: 'guest', space_ids: [] }, ['/space_ids']],
      [{ email: 'm@example.test', role: 'member', space_ids: [space] }, ['/space_ids']],
      [{ email: 'g@example.test', role: 'guest', space_ids: [space, foreign] }, ['/space_ids/1']],
      [{ email: 'not an email', role: 'member' }, ['/email']],
      [{ email: 'x@example.test', role: 'owner' }, ['/role']],
      [{ email: 'x@example.test', role: 'member', status: 'accepted' }, ['/status']],
    ];
    for (const [body, expected] of cases) {
      const res = await post(body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(pointers(res), expected, JSON.stringify(body));
    }
    assert.equal((await t.db('workspace_invites').where({ workspace_id: ws.id })).length, 0);

    const guest = await post({ email: 'g@example.test', role: 'guest', space_ids: [space] });
    assert.equal(guest.status, 201);
    assert.deepEqual(guest.body.space_ids, [space]);
  });

  it('lets only admins manage invites, and hides the workspace from outsiders', async () => {
    const ws = await createWorkspace(t, ann);
    const ed = await signUp(t);
    await joinWorkspace(t, ann, ws.id, ed, 'creator');
    const stranger = await signUp(t);
    const { id } = await invite(t, ann, ws.id, { email: 'target@example.test', role: 'member' });
    const calls = [
      (u: { Authorization: string }) => t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(u).send({ email: 'z@example.test', role: 'member' }),
      (u: { Authorization: string }) => t.request.get(`/api/v1/workspaces/${ws.id}/invites`).set(u),
      (u: { Authorization: string }) => t.request.post(`/api/v1/workspaces/${ws.id}/invites/${id}/resend`).set(u),
      (u: { Authorization: string }) => t.request.delete(`/api/v1/workspaces/${ws.id}/invites/${id}`).set(u),
    ];
    for (const call of calls) {
      assert.equal((await call(ed.auth)).status, 403);
      assert.equal((await call(stranger.auth)).status, 404);
    }
    const readPat = await createPat(t, ann, { workspace_id: ws.id, scope: 'read' });
    assert.equal((await calls[0](readPat.auth)).status, 403);
    const adminPat = await createPat(t, ann, { workspace_id: ws.id, scope: 'admin' });
    assert.equal((await calls[1](adminPat.auth)).status, 200);
    const [row] = await t.db('workspace_invites').where({ id });
    assert.equal(row.status, 'pending');
  });

  it('refuses to invite a member, or an address with a pending invite (any case), until that one is revoked', async () => {
    const ws = await createWorkspace(t, ann);
    const member = await t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(ann.auth).send({ email: ann.email.toUpperCase(), role: 'member' });
    assert.equal(member.status, 409);
    assert.equal(member.body.code, 'already_member');

    const first = await invite(t, ann, ws.id, { email: 'dup@example.test', role: 'member' });
    const again = await t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(ann.auth).send({ email: 'DUP@example.test', role: 'editor' });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'invite_pending');
    assert.match(again.body.detail, /resend/);
    assert.ok(again.body.detail.includes(first.id));

    await t.request.delete(`/api/v1/workspaces/${ws.id}/invites/${first.id}`).set(ann.auth).expect(200);
    const fresh = await t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(ann.auth).send({ email: 'DUP@example.test', role: 'editor' });
    assert.equal(fresh.status, 201);
  });

  it('answers one of two simultaneous invites to the same address with 409, never both stored', async () => {
    const ws = await createWorkspace(t, ann);
    const send = () => t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(ann.auth).send({ email: 'race@example.test', role: 'member' });
    const results = await Promise.all([send(), send(), send()]);
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409]);
    assert.equal((await t.db('workspace_invites').where({ workspace_id: ws.id })).length, 1);
  });

  it('accepts for the invited address only; the invitee joins with the invite\'s role', async () => {
    const ws = await createWorkspace(t, ann);
    const bob = await signUp(t, { email: `Bob.${Date.now()}@Example.test` });
    const eve = await signUp(t);
    const { id, accept_url } = await invite(t, ann, ws.id, { email: bob.email.toLowerCase(), role: 'editor' });
    const token = tokenOf(accept_url);

    const wrong = await accept(token, eve);
    assert.equal(wrong.status, 403);
    assert.equal((await t.db('workspace_members').where({ workspace_id: ws.id, user_id: eve.id })).length, 0);

    const bobPat = await createPat(t, bob);
    assert.equal((await t.request.post(`/api/v1/invites/${token}/accept`).set(bobPat.auth)).status, 403, 'a token cannot join a workspace');

    const res = await accept(token, bob);
    assert.equal(res.status, 200);
    assert.deepEqual(
      { ...res.body, joined_at: undefined },
      { workspace_id: ws.id, user_id: bob.id, email: bob.email, name: bob.name, role: 'editor', space_ids: [], joined_at: undefined },
    );
    const members = await t.request.get(`/api/v1/workspaces/${ws.id}/members`).set(ann.auth);
    assert.deepEqual(members.body.data.map((m: { user_id: string; role: string }) => [m.user_id, m.role]), [[ann.id, 'admin'], [bob.id, 'editor']]);
    const [row] = await t.db('workspace_invites').where({ id });
    assert.equal(row.status, 'accepted');
    assert.equal(row.accepted_by, bob.id);
    assert.ok(row.accepted_at);
    assert.equal((await t.request.get(`/api/v1/workspaces/${ws.id}`).set(bob.auth)).status, 200);

    const [accepted] = await eventsNamed(t, 'invite.accepted', ws.id);
    assert.equal(accepted.actor_id, bob.id);
    assert.equal(accepted.payload.member.user_id, bob.id);
  });

  it('answers unknown, malformed and revoked tokens with 404', async () => {
    const bob = await signUp(t);
    assert.equal((await accept('A'.repeat(32), bob)).status, 404);
    assert.equal((await accept('short', bob)).status, 404);
    assert.equal((await accept(`${'A'.repeat(31)}-`, bob)).status, 404);
    const ws = await createWorkspace(t, ann);
    const { id, accept_url } = await invite(t, ann, ws.id, { email: bob.email, role: 'member' });
    await t.request.delete(`/api/v1/workspaces/${ws.id}/invites/${id}`).set(ann.auth).expect(200);
    assert.equal((await accept(tokenOf(accept_url), bob)).status, 404);
    assert.equal((await t.db('workspace_members').where({ workspace_id: ws.id, user_id: bob.id })).length, 0);
  });

  it('makes a second accept, even a simultaneous one, harmless: one membership, one event', async () => {
    const ws = await createWorkspace(t, ann);
    const bob = await signUp(t);
    const { accept_url } = await invite(t, ann, ws.id, { email: bob.email, role: 'member' });
    const token = tokenOf(accept_url);
    const [a, b] = await Promise.all([accept(token, bob), accept(token, bob)]);
    assert.deepEqual([a.status, b.status], [200, 200]);
    assert.deepEqual(a.body, b.body);
    const again = await accept(token, bob);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, a.body);
    assert.equal((await t.db('workspace_members').where({ workspace_id: ws.id, user_id: bob.id })).length, 1);
    assert.equal((await eventsNamed(t, 'member.added', ws.id)).length, 1);
    assert.equal((await eventsNamed(t, 'invite.accepted', ws.id)).length, 1);

    // Once removed, the spent link does not bring them back.
    await t.request.delete(`/api/v1/workspaces/${ws.id}/members/${bob.id}`).set(ann.auth).expect(204);
    assert.equal((await accept(token, bob)).status, 404);
    assert.equal((await t.db('workspace_members').where({ workspace_id: ws.id, user_id: bob.id })).length, 0);
  });

  it('resends a pending invite with a fresh link: the old one stops working at once, a new mail goes out', async () => {
    const ws = await createWorkspace(t, ann, 'Resend Ltd');
    const dan = await signUp(t);
    const first = await invite(t, ann, ws.id, { email: dan.email, role: 'member' });
    const res = await t.request.post(`/api/v1/workspaces/${ws.id}/invites/${first.id}/resend`).set(ann.auth);
    assert.equal(res.status, 200);
    assert.equal(res.body.id, first.id);
    assert.equal(res.body.status, 'pending');
    assert.notEqual(res.body.accept_url, first.accept_url);
    assert.ok(res.body.sent_at >= (first.sent_at as string));

    assert.equal((await accept(tokenOf(first.accept_url), dan)).status, 404, 'the old link is dead');
    const mails = await waitUntil('both mails', async () => {
      const rows = await outboxFor(dan.email);
      return rows.length === 2 && rows;
    });
    assert.ok(mails.some((m) => m.text.includes(res.body.accept_url)));
    assert.ok(mails.every((m) => /Resend Ltd/.test(m.subject)));

    assert.equal((await accept(tokenOf(res.body.accept_url), dan)).status, 200);
    const late = await t.request.post(`/api/v1/workspaces/${ws.id}/invites/${first.id}/resend`).set(ann.auth);
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'invite_not_pending');

    const revoked = await invite(t, ann, ws.id, { email: 'gone@example.test', role: 'member' });
    await t.request.delete(`/api/v1/workspaces/${ws.id}/invites/${revoked.id}`).set(ann.auth).expect(200);
    assert.equal((await t.request.post(`/api/v1/workspaces/${ws.id}/invites/${revoked.id}/resend`).set(ann.auth)).status, 409);
    const other = await createWorkspace(t, ann);
    assert.equal((await t.request.post(`/api/v1/workspaces/${other.id}/invites/${first.id}/resend`).set(ann.auth)).status, 404, 'an invite of another workspace');
  });

  it('revokes: idempotent for a revoked invite, refused for an accepted one', async () => {
    const ws = await createWorkspace(t, ann);
    const pending = await invite(t, ann, ws.id, { email: 'rev@example.test', role: 'member' });
    const res = await t.request.delete(`/api/v1/workspaces/${ws.id}/invites/${pending.id}`).set(ann.auth);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'revoked');
    assert.ok(res.body.revoked_at);
    assert.equal(res.body.accept_url, null);
    const twice = await t.request.delete(`/api/v1/workspaces/${ws.id}/invites/${pending.id}`).set(ann.auth);
    assert.equal(twice.status, 200);
    assert.deepEqual(twice.body, res.body);
    assert.equal((await eventsNamed(t, 'invite.revoked', ws.id)).length, 1);

    const fay = await signUp(t);
    await joinWorkspace(t, ann, ws.id, fay, 'member');
    const [accepted] = await t.db('workspace_invites').where({ workspace_id: ws.id, status: 'accepted' });
    assert.equal((await t.request.delete(`/api/v1/workspaces/${ws.id}/invites/${accepted.id}`).set(ann.auth)).status, 409);
    assert.equal((await t.request.delete(`/api/v1/workspaces/${ws.id}/invites/00000000-0000-4000-8000-000000000000`).set(ann.auth)).status, 404);
  });

  it('lists newest first, by status, a page at a time', async () => {
    const ws = await createWorkspace(t, ann);
    const a = await invite(t, ann, ws.id, { email: 'a@example.test', role: 'member' });
    const b = await invite(t, ann, ws.id, { email: 'b@example.test', role: 'member' });
    const c = await invite(t, ann, ws.id, { email: 'c@example.test', role: 'member' });
    await t.request.delete(`/api/v1/workspaces/${ws.id}/invites/${b.id}`).set(ann.auth).expect(200);
    const list = (q: string) => t.request.get(`/api/v1/workspaces/${ws.id}/invites${q}`).set(ann.auth);
    const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((i) => i.id);

    const page1 = await list('?limit=2');
    assert.deepEqual(ids(page1), [c.id, b.id]);
    const page2 = await list(`?limit=2&cursor=${page1.body.next_cursor}`);
    assert.deepEqual(ids(page2), [a.id]);
    assert.equal(page2.body.next_cursor, null);
    assert.deepEqual(ids(await list('?status=pending')), [c.id, a.id]);
    assert.deepEqual(ids(await list('?status=revoked')), [b.id]);
    assert.equal((await list('?status=expired')).status, 422);
  });

  it('lets a guest join its spaces; an invite whose spaces were all deleted can no longer be accepted', async () => {
    const ws = await createWorkspace(t, ann);
    const s1 = spaces.add(ws.id);
    const s2 = spaces.add(ws.id);
    const gus = await signUp(t);
    const joined = await joinWorkspace(t, ann, ws.id, gus, 'guest', [s1, s2]);
    assert.equal(joined.role, 'guest');
    assert.deepEqual([...joined.space_ids].sort(), [s1, s2].sort());

    const hal = await signUp(t);
    const s3 = spaces.add(ws.id);
    const { id, accept_url } = await invite(t, ann, ws.id, { email: hal.email, role: 'guest', space_ids: [s3] });
    await spaces.remove(t, s3);
    const [row] = await t.db('workspace_invites').where({ id });
    assert.deepEqual(row.space_ids, []);
    const res = await accept(tokenOf(accept_url), hal);
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'invite_spaces_gone');
    assert.equal((await t.db('workspace_members').where({ workspace_id: ws.id, user_id: hal.id })).length, 0);
  });
});

describe('workspace invites without the mail plugin', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: corePlugins, config: { plugins: { mail: { enabled: false } } } });
  });
  after(() => t.stop());

  it('still works: the admin hands out the link, which points at the server the request came to', async () => {
    const ann = await signUp(t);
    const bob = await signUp(t);
    const ws = await createWorkspace(t, ann);
    const created = await invite(t, ann, ws.id, { email: bob.email, role: 'member' });
    assert.ok(created.accept_url.startsWith(`${t.url}/invites/`), created.accept_url);
    const res = await t.request.post(`/api/v1/invites/${tokenOf(created.accept_url)}/accept`).set(bob.auth);
    assert.equal(res.status, 200);
    assert.equal(res.body.role, 'member');
  });
});
