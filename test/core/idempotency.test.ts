import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../core/testing.ts';
import { definePlugin } from '../../core/plugin.ts';
import { defineRoute, Reply } from '../../core/routes.ts';
import { Type } from '../../core/schema.ts';
import { invalidField } from '../../core/errors.ts';
import { isUser } from '../../core/principal.ts';
import system from '../../plugins/system/index.ts';
import auth from '../../plugins/auth/index.ts';
import tokens from '../../plugins/tokens/index.ts';
import workspaces from '../../plugins/workspaces/index.ts';
import { createPat } from '../plugins/tokens/helpers.ts';
import { waitUntil } from '../fixtures/wait.ts';

const TABLE = 'idem_probe_things';
const KEYS = 'kernel_idempotency_keys';

/** What the probe's handlers do next: fail (by throwing or by answering 4xx) or wait at the gate. */
const probe = {
  failures: [] as Array<'throw' | 'reply'>,
  runs: 0,
  gate: Promise.resolve(),
  open: () => {},
  hold() {
    this.gate = new Promise<void>((resolve) => (this.open = resolve));
  },
};

const ThingBody = Type.Object({ name: Type.String({ minLength: 1 }), note: Type.Optional(Type.String()) }, { additionalProperties: false });

function createThing(path: string, auth: 'user' | 'public', slow = false) {
  return defineRoute({
    method: 'POST',
    path,
    summary: `Create a thing (${path})`,
    auth,
    body: ThingBody,
    status: 201,
    responses: { 201: { description: 'The thing', schema: Type.Object({}, { additionalProperties: true }) } },
    handler: async ({ body, principal, resolve }) => {
      probe.runs++;
      if (slow) await probe.gate;
      const failure = probe.failures.shift();
      if (failure === 'throw') throw invalidField('/name', 'The probe was told to fail.');
      if (failure === 'reply') return new Reply(409, { detail: 'The probe was told to refuse.' });
      const [row] = await resolve('db')(TABLE)
        .insert({ name: body.name, note: body.note ?? null, user_id: isUser(principal) ? principal.user.id : null })
        .returning('*');
      return new Reply(201, { name: row.name, note: row.note, created_at: row.created_at, id: row.id }, { Location: `/api/v1${path}/${row.id}` });
    },
  });
}

const probePlugin = definePlugin({
  id: 'idem-probe',
  version: '1.0.0',
  kernel: '^1.0.0',
  register(ctx) {
    ctx.routes([
      createThing('/probe/things', 'user'),
      createThing('/probe/slow-things', 'user', true),
      createThing('/probe/public-things', 'public'),
    ]);
  },
  async boot(ctx) {
    await ctx.db.schema.createTable(TABLE, (t) => {
      t.uuid('id').primary().defaultTo(ctx.db.raw('gen_random_uuid()'));
      t.uuid('user_id');
      t.text('name').notNullable();
      t.text('note');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(ctx.db.fn.now());
    });
  },
});

describe('Idempotency-Key on POST creates', () => {
  let t: TestKernel;
  let ada: SignedUpUser;
  let bob: SignedUpUser;

  before(async () => {
    t = await startTestKernel({ plugins: [system, auth, tokens, workspaces, probePlugin] });
    ada = await signUp(t);
    bob = await signUp(t);
  });
  after(() => t.stop());
  beforeEach(() => {
    probe.failures = [];
    probe.runs = 0;
  });

  const things = async (name: string) => t.db(TABLE).where({ name });
  const keyRows = (key: string) => t.db(KEYS).where({ key });
  const post = (user: SignedUpUser, key: string | undefined, body: object, path = '/api/v1/probe/things') => {
    const req = t.request.post(path).set(user.auth);
    return key === undefined ? req.send(body) : req.set('Idempotency-Key', key).send(body);
  };

  it('replays the first response for the same key and body, byte for byte, and stores one row', async () => {
    const key = randomUUID();
    const first = await post(ada, key, { name: 'replayed', note: 'n' }).expect(201);
    assert.equal(first.headers['idempotency-replayed'], undefined);
    // Member order differs: the same body all the same.
    const again = await t.request
      .post('/api/v1/probe/things')
      .set(ada.auth)
      .set('Idempotency-Key', key)
      .set('Content-Type', 'application/json')
      .send('{"note":"n","name":"replayed"}')
      .expect(201);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.equal(again.text, first.text);
    assert.equal(again.headers.location, first.headers.location);
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id'], 'the request id is the replay\'s own');
    assert.equal(probe.runs, 1, 'the handler ran once');
    assert.equal((await things('replayed')).length, 1);
    const [record] = await keyRows(key);
    assert.equal(record.user_id, ada.id);
    assert.equal(record.status, 201);
    assert.equal(record.route, '/api/v1/probe/things');
    assert.ok(record.completed_at);
  });

  it('answers 422 for the same key with another body or on another path, and stores nothing', async () => {
    const key = randomUUID();
    const first = await post(ada, key, { name: 'original' }).expect(201);
    const other = await post(ada, key, { name: 'changed' }).expect(422);
    assert.equal(other.body.code, 'idempotency_key_reused');
    assert.equal(other.body.errors[0].pointer, '/headers/idempotency-key');
    const elsewhere = await post(ada, key, { name: 'original' }, '/api/v1/probe/slow-things').expect(422);
    assert.equal(elsewhere.body.code, 'idempotency_key_reused');
    assert.equal(probe.runs, 1);
    assert.equal((await things('changed')).length, 0);
    assert.equal((await things('original')).length, 1);
    const records = await keyRows(key);
    assert.equal(records.length, 1);
    assert.equal(records[0].response_body.id, first.body.id, 'the record still holds the first response');
  });

  it('answers 409 while the first request with the key is running, then replays once it has finished', async () => {
    const key = randomUUID();
    probe.hold();
    const first = post(ada, key, { name: 'slow' }, '/api/v1/probe/slow-things').then((res) => res);
    await waitUntil('the first request to reach its handler', () => probe.runs === 1);
    const during = await post(ada, key, { name: 'slow' }, '/api/v1/probe/slow-things').expect(409);
    assert.equal(during.body.code, 'idempotency_in_flight');
    assert.match(during.headers['content-type'], /^application\/problem\+json/);
    const mismatched = await post(ada, key, { name: 'other' }, '/api/v1/probe/slow-things').expect(422);
    assert.equal(mismatched.body.code, 'idempotency_key_reused');
    const [inFlight] = await keyRows(key);
    assert.equal(inFlight.status, null);
    assert.equal(inFlight.completed_at, null);
    probe.open();
    const done = await first;
    assert.equal(done.status, 201);
    const after = await post(ada, key, { name: 'slow' }, '/api/v1/probe/slow-things').expect(201);
    assert.equal(after.headers['idempotency-replayed'], 'true');
    assert.equal(after.body.id, done.body.id);
    assert.equal(probe.runs, 1);
    assert.equal((await things('slow')).length, 1);
  });

  it('lets exactly one of several simultaneous requests with the same key run', async () => {
    const key = randomUUID();
    probe.hold();
    let answered = 0;
    const all = Array.from({ length: 5 }, () =>
      post(ada, key, { name: 'burst' }, '/api/v1/probe/slow-things').then((res) => {
        answered++;
        return res;
      }),
    );
    await waitUntil('the four others to be refused', () => answered === 4);
    probe.open();
    const responses = await Promise.all(all);
    assert.deepEqual(responses.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);
    assert.equal(probe.runs, 1);
    assert.equal((await things('burst')).length, 1);
  });

  for (const how of ['throw', 'reply'] as const) {
    it(`forgets a first attempt that failed (${how === 'throw' ? 'thrown 422' : 'answered 409'}): a retry with the key runs again`, async () => {
      const key = randomUUID();
      probe.failures = [how];
      await post(ada, key, { name: `retry-${how}` }).expect(how === 'throw' ? 422 : 409);
      assert.equal((await keyRows(key)).length, 0, 'a failure leaves no record');
      const retry = await post(ada, key, { name: `retry-${how}` }).expect(201);
      assert.equal(retry.headers['idempotency-replayed'], undefined);
      assert.equal(probe.runs, 2);
      assert.equal((await things(`retry-${how}`)).length, 1);
      const replay = await post(ada, key, { name: `retry-${how}` }).expect(201);
      assert.equal(replay.body.id, retry.body.id);
    });
  }

  it('keys belong to a user: another user with the same key creates their own', async () => {
    const key = randomUUID();
    const mine = await post(ada, key, { name: 'shared-key' }).expect(201);
    const theirs = await post(bob, key, { name: 'shared-key' }).expect(201);
    assert.equal(theirs.headers['idempotency-replayed'], undefined);
    assert.notEqual(theirs.body.id, mine.body.id);
    assert.equal((await things('shared-key')).length, 2);
    assert.deepEqual((await keyRows(key)).map((r) => r.user_id).sort(), [ada.id, bob.id].sort());
  });

  it('keys belong to the user, not the credential: the user\'s personal access token replays too', async () => {
    const pat = await createPat(t, ada, { scope: 'write' });
    const key = randomUUID();
    const bySession = await post(ada, key, { name: 'by-session' }).expect(201);
    const byToken = await t.request.post('/api/v1/probe/things').set(pat.auth).set('Idempotency-Key', key).send({ name: 'by-session' }).expect(201);
    assert.equal(byToken.headers['idempotency-replayed'], 'true');
    assert.equal(byToken.body.id, bySession.body.id);
  });

  it('without the header every POST creates, and nothing is recorded', async () => {
    const before = Number((await t.db(KEYS).count({ n: '*' }).first())!.n);
    const a = await post(ada, undefined, { name: 'no-key' }).expect(201);
    const b = await post(ada, undefined, { name: 'no-key' }).expect(201);
    assert.notEqual(a.body.id, b.body.id);
    assert.equal(b.headers['idempotency-replayed'], undefined);
    assert.equal((await things('no-key')).length, 2);
    assert.equal(Number((await t.db(KEYS).count({ n: '*' }).first())!.n), before);
  });

  it('ignores the key of an anonymous caller', async () => {
    const key = randomUUID();
    for (let i = 0; i < 2; i++) {
      const res = await t.request.post('/api/v1/probe/public-things').set('Idempotency-Key', key).send({ name: 'anonymous' }).expect(201);
      assert.equal(res.headers['idempotency-replayed'], undefined);
    }
    assert.equal((await things('anonymous')).length, 2);
    assert.equal((await keyRows(key)).length, 0);
  });

  it('refuses a malformed key with 422 and a pointer to the header, without running the handler', async () => {
    for (const key of ['', 'x'.repeat(256), 'caf\u00e9']) {
      const res = await post(ada, key, { name: 'bad-key' }).expect(422);
      assert.equal(res.body.code, 'validation_failed');
      assert.equal(res.body.errors[0].pointer, '/headers/idempotency-key');
    }
    await post(ada, 'k'.repeat(255), { name: 'longest-key' }).expect(201);
    assert.equal(probe.runs, 1);
    assert.equal((await things('bad-key')).length, 0);
  });

  it('treats a key older than 24 hours as new', async () => {
    const key = randomUUID();
    const first = await post(ada, key, { name: 'expiring' }).expect(201);
    await t.db(KEYS).where({ key }).update({ created_at: t.db.raw("now() - interval '25 hours'") });
    // Even with another body: the old request is forgotten.
    const second = await post(ada, key, { name: 'expiring', note: 'later' }).expect(201);
    assert.equal(second.headers['idempotency-replayed'], undefined);
    assert.notEqual(second.body.id, first.body.id);
    assert.equal((await things('expiring')).length, 2);
    const [record] = await keyRows(key);
    assert.equal(record.response_body.id, second.body.id);
    assert.ok(Date.now() - new Date(record.created_at).getTime() < 60_000, 'the record starts a new 24 hours');
  });

  it('takes over a claim left unfinished by a crashed process, but not a recent one', async () => {
    const key = randomUUID();
    const claim = { user_id: ada.id, key, method: 'POST', route: '/api/v1/probe/things', path: '/api/v1/probe/things' };
    await t.db(KEYS).insert({ ...claim, request_hash: 'from-a-dead-process', created_at: t.db.raw("now() - interval '1 minute'") });
    assert.equal((await post(ada, key, { name: 'orphan' }).expect(422)).body.code, 'idempotency_key_reused', 'a recent claim still stands');
    await t.db(KEYS).where({ key }).update({ created_at: t.db.raw("now() - interval '6 minutes'") });
    const res = await post(ada, key, { name: 'orphan' }).expect(201);
    assert.equal(res.headers['idempotency-replayed'], undefined);
    assert.equal((await things('orphan')).length, 1);
    const [record] = await keyRows(key);
    assert.equal(record.response_body.id, res.body.id);
  });

  it('deletes expired records in a scheduled kernel job', async () => {
    const stale = randomUUID();
    const fresh = randomUUID();
    await post(ada, stale, { name: 'purged' }).expect(201);
    await post(ada, fresh, { name: 'kept' }).expect(201);
    await t.db(KEYS).where({ key: stale }).update({ created_at: t.db.raw("now() - interval '25 hours'") });
    const schedules = await t.kernel.jobs.boss.getSchedules();
    assert.ok(schedules.some((s: { name: string }) => s.name === 'kernel.idempotency-purge'), 'the purge runs on a schedule');
    await t.kernel.jobs.send('kernel.idempotency-purge', {});
    await waitUntil('the expired record to be deleted', async () => (await keyRows(stale)).length === 0);
    assert.equal((await keyRows(fresh)).length, 1);
  });

  it('POST /me/tokens opts out: the same key twice mints two different tokens and records nothing', async () => {
    const key = randomUUID();
    const body = { name: 'ci', workspace_id: (await createWorkspace(t, ada)).id };
    const a = await t.request.post('/api/v1/me/tokens').set(ada.auth).set('Idempotency-Key', key).send(body).expect(201);
    const b = await t.request.post('/api/v1/me/tokens').set(ada.auth).set('Idempotency-Key', key).send(body).expect(201);
    assert.notEqual(a.body.token, b.body.token);
    assert.notEqual(a.body.id, b.body.id);
    assert.equal(b.headers['idempotency-replayed'], undefined);
    assert.equal((await keyRows(key)).length, 0);
  });

  it('documents the header and its answers in the OpenAPI document, only where it applies', async () => {
    const { body: doc } = await t.request.get('/api/v1/openapi.json').expect(200);
    const create = doc.paths['/api/v1/probe/things'].post;
    const header = create.parameters.find((p: { in: string }) => p.in === 'header');
    assert.equal(header.name, 'Idempotency-Key');
    assert.equal(header.schema.maxLength, 255);
    assert.ok(create.responses['409'], '409 while in flight');
    assert.match(create.responses['422'].description, /idempotency_key_reused/);
    assert.ok(create.responses['201'].headers['Idempotency-Replayed']);
    for (const path of ['/api/v1/me/tokens', '/api/v1/auth/sign-up']) {
      const op = doc.paths[path].post;
      assert.ok(!op.parameters.some((p: { in: string }) => p.in === 'header'), `${path} takes no key`);
      assert.match(op.description, /Idempotency-Key.*ignored/);
    }
    assert.ok(!doc.paths['/api/v1/me/tokens'].get.parameters.some((p: { in: string }) => p.in === 'header'));
  });
});
