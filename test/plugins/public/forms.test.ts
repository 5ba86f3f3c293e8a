import assert from 'node:assert/strict';
import { recordedEvents, createWorkspace, signUp, startTestKernel } from '../../../core/testing.ts';
import { captureLogs } from '../../fixtures/log-capture.ts';
import { pointers } from '../records/setup.ts';
import { formWorld, type FormWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('public: forms', () => {
  let w: FormWorld;
  const submit = (values: Record<string, unknown>, extra: object = {}, token?: string) => w.t.request.post(w.form(token)).send({ values, ...extra });
  const stored = async () => (await w.t.request.get(w.url()).set(w.admin.auth).expect(200)).body.data as Array<{ id: string; values: Record<string, unknown>; created_by: string | null }>;
  const createdEvents = () => recordedEvents(w.t, { name: 'record.created', workspace_id: w.ws });

  // Every test submits from the same address: their attempts add up in one kernel (the limit has tests of its own).
  const kernel = suiteKernel({ config: { plugins: { public: { options: { submissionsPerMinute: 1000 } } } } });
  beforeEach(async () => {
    w = await formWorld(undefined, kernel());
  });

  it('describes the form without a credential: its heading, and the fields it shows in its order', async () => {
    const form = (await w.t.request.get(w.form()).expect(200)).body;
    assert.deepEqual([form.title, form.description], ['Get in touch', 'We answer within a day.']);
    // `note` is hidden; created_at and the other system fields are read-only; the unordered follow in their own order.
    assert.deepEqual(
      form.fields.map((f: { api_name: string; required: boolean }) => [f.api_name, f.required]),
      [['name', true], ['email', true], ['score', false], ['stage', false], ['done', false], ['owner', false]],
    );
    const stage = form.fields.find((f: { api_name: string }) => f.api_name === 'stage');
    assert.deepEqual([stage.name, stage.type, stage.description], ['Stage', 'single_select', null]);
    assert.deepEqual(stage.options.choices.map((c: { label: string }) => c.label), ['Open', 'Closed']);

    // Without a title of its own, the form is headed by the view's name.
    await w.t.request.patch(w.views(`/${w.viewId}`)).set(w.admin.auth).send({ options: {} }).expect(200);
    const plain = (await w.t.request.get(w.form()).expect(200)).body;
    assert.deepEqual([plain.title, plain.description, plain.fields.filter((f: { required: boolean }) => f.required)], ['Contact', null, []]);
  });

  it('creates one record with no user, and its history, event and notifications say it came from the form', async () => {
    const res = await submit({ name: 'Ada', email: 'ada@example.com', score: 2.5, stage: 'Open', owner: w.member.id }).expect(201);
    assert.deepEqual(res.body, { submitted: true });
    const [record, ...others] = await stored();
    assert.equal(others.length, 0);
    assert.equal(record.created_by, null);
    assert.deepEqual(
      { ...record.values, stage: (record.values.stage as { label: string }).label, created_at: undefined, updated_at: undefined },
      { name: 'Ada', email: 'ada@example.com', score: 2.5, stage: 'Open', owner: { id: w.member.id, name: 'Mia' }, done: false, note: null, created_by: null, updated_by: null, created_at: undefined, updated_at: undefined },
    );

    const origin = { type: 'public_form', id: w.viewId };
    const R = `/api/v1/workspaces/${w.ws}/databases/${w.db}/records/${record.id}`;
    const [entry] = (await w.t.request.get(`${R}/activity`).set(w.member.auth).expect(200)).body.data;
    assert.deepEqual([entry.type, entry.actor, entry.origin], ['record.created', null, origin]);
    const [version] = (await w.t.request.get(`${R}/versions`).set(w.member.auth).expect(200)).body.data;
    assert.deepEqual([version.created_by, version.origin], [null, origin]);

    const [event] = await createdEvents();
    assert.deepEqual([event.actor_id, event.payload.origin, event.payload.record.id], [null, origin, record.id]);

    // A member the form assigns hears of it, from no one.
    await w.t.kernel.events.settle();
    const [note] = (await w.t.request.get(`/api/v1/workspaces/${w.ws}/notifications`).set(w.member.auth).expect(200)).body.data;
    assert.deepEqual([note.type, note.actor, note.subject.id], ['assigned', null, record.id]);
  });

  it('never accepts a field the form does not show: hidden, read-only or unknown → 422 at each, nothing stored', async () => {
    const res = await submit({ name: 'Ada', email: 'ada@example.com', note: 'sneaky', created_by: w.admin.id, created_at: '2020-01-01T00:00:00Z', id: 'x', ghost: 1 }).expect(422);
    assert.deepEqual(pointers(res).sort(), ['/values/created_at', '/values/created_by', '/values/ghost', '/values/id', '/values/note']);
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(await stored(), []);
    assert.deepEqual(await createdEvents(), []);
  });

  it('requires the required fields (blank text and nothing alike) → 422 with pointers', async () => {
    assert.deepEqual(pointers(await submit({ score: 1 }).expect(422)), ['/values/name', '/values/email']);
    assert.deepEqual(pointers(await submit({ name: '  ', email: null }).expect(422)), ['/values/name', '/values/email']);
    // A required checkbox must be checked.
    await w.t.request.patch(w.views(`/${w.viewId}`)).set(w.admin.auth).send({ options: { required_fields: ['done'] } }).expect(200);
    assert.deepEqual(pointers(await submit({ done: false }).expect(422)), ['/values/done']);
    assert.deepEqual(await stored(), []);
    await submit({ done: true }).expect(201);
    assert.equal((await stored()).length, 1);
  });

  it('checks values by their field types exactly as a signed-in write does, every problem in one answer', async () => {
    const bad = { name: 'Ada', email: 'not an address', score: 'many', stage: 'Nope', owner: w.outsider.id };
    const signedIn = await w.t.request.post(w.url()).set(w.editor.auth).send({ values: bad }).expect(422);
    const anonymous = await submit(bad).expect(422);
    assert.deepEqual(anonymous.body.errors, signedIn.body.errors);
    assert.deepEqual(pointers(anonymous).sort(), ['/values/email', '/values/owner', '/values/score', '/values/stage']);
    // Form problems and cell problems come together.
    assert.deepEqual(pointers(await submit({ email: 'nope', note: 'x' }).expect(422)).sort(), ['/values/email', '/values/name', '/values/note']);
    assert.deepEqual(await stored(), []);
  });

  it('answers a filled honeypot like a success and creates nothing, whatever the values', async () => {
    const res = await submit({ name: 'Bot', ghost: 'spam' }, { hp: 'http://spam.example' }).expect(201);
    assert.deepEqual(res.body, { submitted: true });
    assert.deepEqual(await stored(), []);
    assert.deepEqual(await createdEvents(), []);
    // An empty honeypot is a person.
    await submit({ name: 'Ada', email: 'ada@example.com' }, { hp: '' }).expect(201);
    assert.equal((await stored()).length, 1);
  });

  it('answers 404 to an unknown or malformed link, and at once once the form is unpublished, republished or deleted', async () => {
    for (const token of ['A'.repeat(32), 'not-a-token!', 'x'.repeat(200)]) {
      await w.t.request.get(w.form(token)).expect(404);
      await submit({ name: 'Ada', email: 'ada@example.com' }, {}, token).expect(404);
    }
    await w.t.request.get(w.form()).expect(200);
    await w.t.request.delete(w.views(`/${w.viewId}/publish`)).set(w.admin.auth).expect(204);
    assert.equal((await w.t.request.get(w.form()).expect(404)).body.code, 'not_found');
    await submit({ name: 'Ada', email: 'ada@example.com' }).expect(404);
    // A honeypot submission to a dead link is no success either.
    await submit({}, { hp: 'x' }).expect(404);

    const again = (await w.t.request.post(w.views(`/${w.viewId}/publish`)).set(w.admin.auth).expect(201)).body.token as string;
    await w.t.request.get(w.form()).expect(404);
    await w.t.request.get(w.form(again)).expect(200);
    await w.t.request.delete(w.views(`/${w.viewId}`)).set(w.admin.auth).expect(204);
    await w.t.request.get(w.form(again)).expect(404);
    assert.deepEqual(await stored(), []);
  });

  it('refuses a malformed body (422) and one past maxBodyBytes (413)', async () => {
    for (const body of [{}, { values: [] }, { values: {}, created_by: w.admin.id }, { values: {}, hp: 3 }]) {
      await w.t.request.post(w.form()).send(body).expect(422);
    }
    await submit({ name: 'x'.repeat(70 * 1024), email: 'ada@example.com' }).expect(413);
    assert.deepEqual(await stored(), []);
  });
});

describe('public: form links in logs', () => {
  it('logs the route template, never the token', async () => {
    const logs = captureLogs('info');
    const t = await startTestKernel({ logger: logs.logger });
    try {
      const admin = await signUp(t);
      const ws = (await createWorkspace(t, admin)).id;
      const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
      const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
      const views = `/api/v1/workspaces/${ws}/databases/${db}/views`;
      const view = (await t.request.post(views).set(admin.auth).send({ name: 'F', type: 'form' }).expect(201)).body.id;
      const token = (await t.request.post(`${views}/${view}/publish`).set(admin.auth).expect(201)).body.token as string;
      await t.request.get(`/api/v1/public/forms/${token}`).expect(200);
      await t.request.post(`/api/v1/public/forms/${token}`).send({ values: { ghost: 1 } }).expect(422);
      await t.request.post(`/api/v1/public/forms/${token}`).send({ values: {} }).expect(201);
      const requests = logs.lines.filter((l) => l.msg === 'request' && l.path === '/api/v1/public/forms/{token}');
      assert.equal(requests.length, 3);
      assert.ok(!JSON.stringify(logs.lines).includes(token), 'a log line holds the token');
    } finally {
      await t.stop();
    }
  });
});
