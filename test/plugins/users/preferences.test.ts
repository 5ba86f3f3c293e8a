import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { createPat } from '../tokens/helpers.ts';

const DEFAULTS = { locale: 'en', timezone: 'UTC', notifications: {} };

describe('users: GET/PATCH /me/preferences', () => {
  let t: TestKernel;
  let alice: SignedUpUser;

  before(async () => {
    t = await startTestKernel();
    alice = await signUp(t);
  });
  after(() => t.stop());

  const get = (u: SignedUpUser) => t.request.get('/api/v1/me/preferences').set(u.auth).expect(200);
  const patch = (u: SignedUpUser, body: unknown) => t.request.patch('/api/v1/me/preferences').set(u.auth).send(body as object);
  const storedRows = async (u: SignedUpUser) => t.db('users_preferences').where({ user_id: u.id });

  it('reads defaults for a user who never set anything, without storing a row', async () => {
    const u = await signUp(t);
    assert.deepEqual((await get(u)).body, DEFAULTS);
    assert.equal((await storedRows(u)).length, 0);
  });

  it('requires a signed-in user', async () => {
    const res = await t.request.get('/api/v1/me/preferences').expect(401);
    assert.equal(res.body.code, 'unauthenticated');
    await t.request.patch('/api/v1/me/preferences').send({ locale: 'fr' }).expect(401);
  });

  it('stores locale (canonical form) and timezone, keeping what was not sent', async () => {
    const u = await signUp(t);
    let res = await patch(u, { locale: 'pt-br' }).expect(200);
    assert.deepEqual(res.body, { ...DEFAULTS, locale: 'pt-BR' });
    res = await patch(u, { timezone: 'Europe/Paris' }).expect(200);
    assert.deepEqual(res.body, { ...DEFAULTS, locale: 'pt-BR', timezone: 'Europe/Paris' });
    assert.deepEqual((await get(u)).body, res.body);
  });

  it('merges notifications type by type; a given type is replaced, an omitted channel is on', async () => {
    const u = await signUp(t);
    await patch(u, { notifications: { mention: { inbox: true, email: false }, comment: { inbox: false, email: false } } }).expect(200);
    const res = await patch(u, { notifications: { comment: { email: false }, watch: { inbox: false, email: true } } }).expect(200);
    assert.deepEqual(res.body.notifications, {
      mention: { inbox: true, email: false },
      comment: { inbox: true, email: false },
      watch: { inbox: false, email: true },
    });
    assert.deepEqual((await get(u)).body.notifications, res.body.notifications);
  });

  it('tells other plugins how a type is delivered, defaulting to every channel', async () => {
    const u = await signUp(t);
    await patch(u, { notifications: { approval: { inbox: true, email: false } } }).expect(200);
    const prefs = t.container.resolverFor('users')('users.preferences');
    assert.deepEqual(await prefs.deliveryFor(u.id, 'approval'), { inbox: true, email: false });
    assert.deepEqual(await prefs.deliveryFor(u.id, 'mention'), { inbox: true, email: true });
  });

  it('lets a personal access token read them, and change them only with write scope', async () => {
    const u = await signUp(t);
    const pat = async (scope: string) => (await createPat(t, u, { name: scope, scope })).auth;
    const read = await pat('read');
    assert.deepEqual((await t.request.get('/api/v1/me/preferences').set(read).expect(200)).body, DEFAULTS);
    assert.equal((await t.request.patch('/api/v1/me/preferences').set(read).send({ locale: 'fr' }).expect(403)).body.code, 'forbidden');
    assert.equal((await get(u)).body.locale, 'en');
    await t.request.patch('/api/v1/me/preferences').set(await pat('write')).send({ locale: 'fr' }).expect(200);
    assert.equal((await get(u)).body.locale, 'fr');
  });

  it('accepts an empty patch as a no-op', async () => {
    const u = await signUp(t);
    assert.deepEqual((await patch(u, {}).expect(200)).body, DEFAULTS);
  });

  describe('refuses invalid input with 422 and stores nothing', () => {
    let u: SignedUpUser;
    const before = { locale: 'de-DE', timezone: 'Asia/Tokyo', notifications: { mention: { inbox: false, email: true } } };

    beforeEach(async () => {
      u = await signUp(t);
      await patch(u, before).expect(200);
    });

    const cases: Array<[string, unknown, string[]]> = [
      ['an invalid locale', { locale: 'en_US', timezone: 'Europe/Berlin' }, ['/locale']],
      ['a locale that is not a tag', { locale: '12' }, ['/locale']],
      ['an unknown time zone', { timezone: 'Mars/Olympus_Mons', locale: 'fr' }, ['/timezone']],
      ['a UTC offset instead of a zone', { timezone: '+01:00' }, ['/timezone']],
      ['both invalid', { locale: 'x', timezone: 'Nowhere' }, ['/locale', '/timezone']],
      ['an unknown property', { locale: 'fr', theme: 'dark' }, ['/theme']],
      ['an unknown key inside a type', { notifications: { mention: { inbox: true, sms: true } } }, ['/notifications/mention/sms']],
      ['a non-boolean channel', { notifications: { mention: { email: 'yes' } } }, ['/notifications/mention/email']],
      ['a type that is not snake_case', { notifications: { 'Mention-X': { inbox: true } } }, ['/notifications/Mention-X']],
      ['a type given as a boolean', { notifications: { mention: false } }, ['/notifications/mention']],
      ['a locale of the wrong type', { locale: 5 }, ['/locale']],
    ];
    for (const [name, body, pointers] of cases) {
      it(name, async () => {
        const res = await patch(u, body).expect(422);
        assert.equal(res.headers['content-type'], 'application/problem+json');
        assert.equal(res.body.code, 'validation_failed');
        assert.deepEqual([...new Set(res.body.errors.map((e: { pointer: string }) => e.pointer))].sort(), pointers);
        assert.deepEqual((await get(u)).body, before);
      });
    }
  });

  it('keeps users apart and removes a user’s row with the user', async () => {
    const u = await signUp(t);
    await patch(u, { locale: 'ja' }).expect(200);
    assert.equal((await get(alice)).body.locale, 'en');
    assert.equal((await storedRows(u)).length, 1);
    await t.db('users').where({ id: u.id }).delete();
    assert.equal((await storedRows(u)).length, 0);
  });
});
