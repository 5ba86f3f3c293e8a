import assert from 'node:assert/strict';
import { createWorkspace, joinWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { automationWorld, type AutomationWorld } from '../automations/world.ts';

describe('approvals: request_approval pauses a run until an approver decides', function () {
  this.timeout(60000);
  let w: AutomationWorld;
  let member: SignedUpUser;
  let bystander: SignedUpUser;

  before(async () => {
    w = await automationWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 } } });
    member = await signUp(w.t, { name: 'Mia Member' });
    bystander = await signUp(w.t, { name: 'Bea Bystander' });
    await joinWorkspace(w.t, w.admin, w.ws, member, 'member');
    await joinWorkspace(w.t, w.admin, w.ws, bystander, 'member');
  });
  after(() => w.t.stop());

  const automation = async (name: string, approvers: string[], extra: Record<string, unknown> = {}) =>
    (
      await w.t.request
        .post(w.api('/automations'))
        .set(w.admin.auth)
        .send({
          name,
          database_id: w.db,
          enabled: true,
          trigger: { type: 'record_created' },
          conditions: { field: 'name', op: 'eq', value: name },
          actions: [{ type: 'request_approval', approver_ids: approvers, text: 'Ship {{record.name}}?', ...extra }, { type: 'update_record', values: { note: 'approved' } }],
        })
        .expect(201)
    ).body.id as string;
  const record = async (name: string) => (await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.admin.auth).send({ values: { name } }).expect(201)).body.id as string;
  const runOf = async (automationId: string) => (await w.t.request.get(w.api(`/automations/${automationId}/runs`)).set(w.admin.auth).expect(200)).body.data[0];
  /** Creates the automation and a matching record; answers once the run waits, with its approval. */
  const waiting = async (name: string, approvers = [w.editor.id, member.id], extra: Record<string, unknown> = {}) => {
    const id = await automation(name, approvers, extra);
    const recordId = await record(name);
    await waitUntil('the run to wait', async () => (await runOf(id))?.status === 'waiting_for_approval', 20000);
    const approval = await w.t.db('approvals').where({ automation_id: id }).first('id');
    return { automation: id, record: recordId, approval: approval.id as string, run: (await runOf(id)).id as string };
  };
  const decide = (approval: string, verb: 'approve' | 'reject', who: SignedUpUser | { auth: Record<string, string> }, body?: object) => {
    const req = w.t.request.post(w.api(`/approvals/${approval}/${verb}`)).set(who.auth);
    return body ? req.send(body) : req;
  };
  const note = async (id: string) => (await w.t.request.get(w.api(`/databases/${w.db}/records/${id}`)).set(w.admin.auth).expect(200)).body.values.note;
  const ended = (automationId: string) => waitUntil('the run to end', async () => ((r) => r?.finished_at && r)(await runOf(automationId)), 20000);

  it('refuses approvers who are not members able to read the database, at their pointer, storing nothing', async () => {
    const before = (await w.t.db('automations').count({ n: '*' }))[0].n;
    const res = await w.t.request
      .post(w.api('/automations'))
      .set(w.admin.auth)
      .send({ name: 'bad', database_id: w.db, trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: {} }, { type: 'request_approval', approver_ids: [w.editor.id, w.outsider.id], text: 'x' }] })
      .expect(422);
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/actions/1/approver_ids/1']);
    const bad = await w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ name: 'bad', database_id: w.db, trigger: { type: 'record_created' }, actions: [{ type: 'request_approval', approver_ids: [], text: 'x', timeout_hours: 0 }] }).expect(422);
    assert.ok(bad.body.errors.some((e: { pointer: string }) => e.pointer.startsWith('/actions/0/')), JSON.stringify(bad.body.errors));
    assert.equal((await w.t.db('automations').count({ n: '*' }))[0].n, before);
  });

  it('approve: the approvers alone are told, only a session of one of them decides, once; the run goes on to its next step', async () => {
    const { automation: id, record: recordId, approval, run } = await waiting('approve-me');
    const stored = (await w.t.request.get(w.api(`/approvals/${approval}`)).set(w.editor.auth).expect(200)).body;
    assert.deepEqual({ run_id: stored.run_id, automation_id: stored.automation_id, record_id: stored.record_id, text: stored.text, approver_ids: stored.approver_ids, status: stored.status, decided_by: stored.decided_by }, { run_id: run, automation_id: id, record_id: recordId, text: 'Ship approve-me?', approver_ids: [w.editor.id, member.id], status: 'pending', decided_by: null });

    const told = async (who: SignedUpUser) => (await w.t.request.get(w.api('/notifications')).set(who.auth).query({ type: 'approval_requested' }).expect(200)).body.data.filter((n: { data: { approval_id: string } }) => n.data.approval_id === approval).length;
    assert.deepEqual([await told(w.editor), await told(member), await told(w.admin), await told(bystander)], [1, 1, 0, 0]);

    const pat = (await w.t.request.post('/api/v1/me/tokens').set(w.editor.auth).send({ name: 'ci', workspace_id: w.ws, scope: 'admin' }).expect(201)).body.token;
    await decide(approval, 'approve', { auth: { Authorization: `Bearer ${pat}` } }).expect(403);
    assert.equal((await decide(approval, 'approve', w.admin).expect(403)).body.code, 'not_approver');
    await decide(approval, 'approve', bystander).expect(403);
    await decide(approval, 'approve', w.outsider).expect(404);
    const elsewhere = (await createWorkspace(w.t, w.editor, 'Elsewhere')).id;
    await w.t.request.post(`/api/v1/workspaces/${elsewhere}/approvals/${approval}/approve`).set(w.editor.auth).expect(404);
    await w.t.request.get(`/api/v1/workspaces/${elsewhere}/approvals/${approval}`).set(w.editor.auth).expect(404);
    await w.t.request.get(w.api(`/approvals/${approval}`)).set(bystander.auth).expect(404);
    for (const body of [{ comment: 'x'.repeat(2001) }, { comment: 'a\u0000b' }, { comment: 5 }, { verdict: 'yes' }]) {
      assert.equal((await decide(approval, 'approve', w.editor, body)).status, 422, JSON.stringify(body));
    }
    assert.equal((await w.t.db('approvals').where({ id: approval }).first('status')).status, 'pending');

    const approved = (await decide(approval, 'approve', w.editor, { comment: 'Go.' }).expect(200)).body;
    assert.deepEqual({ status: approved.status, decided_by: approved.decided_by, comment: approved.comment }, { status: 'approved', decided_by: w.editor.id, comment: 'Go.' });
    assert.ok(approved.decided_at);
    assert.equal((await decide(approval, 'approve', member).expect(409)).body.code, 'already_decided');
    assert.equal((await decide(approval, 'reject', w.editor).expect(409)).body.code, 'already_decided');

    const done = await ended(id);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.deepEqual(done.steps.map((s: { action: string; status: string }) => [s.action, s.status]), [['request_approval', 'succeeded'], ['update_record', 'succeeded']]);
    assert.equal(await note(recordId), 'approved');
  });

  it('reject ends the run as failed; its next step never runs', async () => {
    const { automation: id, record: recordId, approval } = await waiting('reject-me');
    await decide(approval, 'reject', member, { comment: 'No budget.' }).expect(200);
    const done = await ended(id);
    assert.equal(done.status, 'failed');
    assert.equal(done.steps.length, 1);
    assert.match(done.steps[0].error, /No budget/);
    assert.equal(await note(recordId), null);
  });

  it('concurrent decisions: exactly one wins', async () => {
    const { approval } = await waiting('race');
    const answers = await Promise.all([decide(approval, 'approve', w.editor), decide(approval, 'reject', member)]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409]);
    const winner = answers.find((r) => r.status === 200)!.body;
    assert.equal((await w.t.db('approvals').where({ id: approval }).first('status')).status, winner.status);
  });

  it('expiry: past its timeout an approval expires and its run fails', async () => {
    const { automation: id, record: recordId, approval } = await waiting('expire-me', [w.editor.id], { timeout_hours: 1 });
    const { span } = await w.t.db('approvals').where({ id: approval }).first(w.t.db.raw('extract(epoch from expires_at - created_at)::int as span'));
    assert.ok(Math.abs(Number(span) - 3600) < 60, `expires ${span} s after creation`);
    await w.t.db('approvals').where({ id: approval }).update({ expires_at: w.t.db.raw("now() - interval '1 second'") });
    assert.equal(await w.t.container.resolverFor('approvals')('approvals.service').expireDue(), 1);
    assert.equal((await decide(approval, 'approve', w.editor).expect(409)).body.code, 'already_decided');
    const done = await ended(id);
    assert.equal(done.status, 'failed');
    assert.match(done.reason, /expired/);
    assert.equal(await note(recordId), null);
  });

  it('a canceled run leaves its approval undecidable (409) and expired', async () => {
    const { approval, run } = await waiting('cancel-me');
    await w.t.request.post(w.api(`/runs/${run}/cancel`)).set(w.admin.auth).expect(200);
    assert.equal((await decide(approval, 'approve', w.editor).expect(409)).body.code, 'run_not_waiting');
    assert.equal((await w.t.db('approvals').where({ id: approval }).first('status')).status, 'expired');
    assert.equal((await w.t.request.get(w.api(`/runs/${run}`)).set(w.admin.auth).expect(200)).body.status, 'canceled');
  });

  it('dry run: says what it would ask, and stores and sends nothing', async () => {
    const id = await automation('dry', [w.editor.id]);
    await w.t.request.patch(w.api(`/automations/${id}`)).set(w.admin.auth).send({ enabled: false }).expect(200);
    const recordId = await record('dry');
    const res = await w.t.request.post(w.api(`/automations/${id}/dry-run`)).set(w.admin.auth).send({ record_id: recordId }).expect(200);
    assert.deepEqual(res.body.steps[0], { action: 'request_approval', would: { approver_ids: [w.editor.id], text: 'Ship dry?', timeout_hours: 24 } });
    assert.equal((await w.t.db('approvals').where({ automation_id: id }).count({ n: '*' }))[0].n, 0);
  });

  it('at run time, approvers who left are not asked; with none left, the step fails', async () => {
    const leaver = await signUp(w.t, { name: 'Lee Leaver' });
    await joinWorkspace(w.t, w.admin, w.ws, leaver, 'member');
    const some = await automation('some-left', [leaver.id, member.id]);
    const none = await automation('none-left', [leaver.id]);
    await w.t.request.delete(w.api(`/members/${leaver.id}`)).set(w.admin.auth).expect(204);
    await record('some-left');
    await record('none-left');
    await waitUntil('the run to wait', async () => (await runOf(some))?.status === 'waiting_for_approval', 20000);
    assert.deepEqual((await w.t.db('approvals').where({ automation_id: some }).first('approver_ids')).approver_ids, [member.id]);
    const failed = await ended(none);
    assert.equal(failed.status, 'failed');
    assert.match(failed.steps[0].error, /None of the approvers/);
  });

  it('lists: approvers see theirs, creators of the database see all, others none; ?status filters', async () => {
    const { approval } = await waiting('listed', [member.id]);
    const list = async (who: SignedUpUser, query: Record<string, string> = {}) => (await w.t.request.get(w.api('/approvals')).set(who.auth).query(query).expect(200)).body.data.map((a: { id: string }) => a.id) as string[];
    const all = await w.t.db('approvals').where({ workspace_id: w.ws }).pluck('id');
    assert.deepEqual((await list(w.admin)).sort(), [...all].sort());
    const mine = await w.t.db('approvals').whereRaw('approver_ids @> ?::jsonb', [JSON.stringify([member.id])]).pluck('id');
    assert.deepEqual((await list(member)).sort(), [...mine].sort());
    assert.deepEqual(await list(bystander), []);
    const pending = await w.t.db('approvals').whereRaw('approver_ids @> ?::jsonb', [JSON.stringify([member.id])]).where({ status: 'pending' }).pluck('id');
    assert.ok(pending.includes(approval) && pending.length < mine.length);
    assert.deepEqual((await list(member, { status: 'pending' })).sort(), [...pending].sort());
    const page = (await w.t.request.get(w.api('/approvals')).set(w.admin.auth).query({ limit: 2 }).expect(200)).body;
    assert.equal(page.data.length, 2);
    assert.ok(page.next_cursor);
    await w.t.request.get(w.api('/approvals')).set(w.admin.auth).query({ status: 'maybe' }).expect(422);
  });

  it('gdpr: export lists what a member was asked for or decided; erasure takes them off approvers and decisions', async () => {
    const approver = await signUp(w.t, { name: 'Gus Gone' });
    await joinWorkspace(w.t, w.admin, w.ws, approver, 'member');
    const first = await waiting('gdpr-decided', [approver.id, w.editor.id]);
    await decide(first.approval, 'approve', approver).expect(200);
    const second = await waiting('gdpr-pending', [approver.id, w.editor.id]);
    const exported = await (w.t.kernel.pluginHooks.get('gdpr.personalData')!.hooks as any).export.promise([], { trx: w.t.db, userId: approver.id, person: { email: approver.email, name: approver.name }, workspaceId: w.ws });
    const section = exported.find((s: { kind: string }) => s.kind === 'approvals');
    assert.deepEqual(section.items.map((a: { id: string }) => a.id).sort(), [first.approval, second.approval].sort());

    const receipt = (await w.t.request.post(w.api(`/members/${approver.id}/erase`)).set(w.admin.auth).send({ confirm: approver.email }).expect(200)).body;
    const report = receipt.reports.find((r: { kind: string }) => r.kind === 'approvals');
    assert.equal(report.pseudonymised, 3, JSON.stringify(report));
    const rows = await w.t.db('approvals').whereIn('id', [first.approval, second.approval]).orderBy('created_at').select('approver_ids', 'decided_by');
    assert.deepEqual(rows, [{ approver_ids: [w.editor.id], decided_by: null }, { approver_ids: [w.editor.id], decided_by: null }]);
  });
});
