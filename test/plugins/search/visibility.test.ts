import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { CALLERS, type Caller, type People, type World } from '../../../core/testing-matrix.ts';
import { buildWorld, createPeople, credentialOf } from '../../authorization/world.ts';
import { waitUntil } from '../../fixtures/wait.ts';

/**
 * What each kind of caller finds, in the matrix's world: S holds database D, T holds Vault (linked from D through a
 * lookup of its titles); `guest_in` is a guest of S, `guest_out` of T; the outsider has a workspace of its own.
 */
describe('search: what each caller finds', () => {
  let t: TestKernel;
  let w: World;
  let people: People;
  let inD: string;
  let inVault: string;
  let theirs: string;

  const search = async (caller: Caller, q: string, ws = w.ws, types = 'records,databases,spaces,documents') => {
    await t.kernel.events.settle();
    const res = await t.request.get(`/api/v1/workspaces/${ws}/search`).query({ q, types }).set(credentialOf(w, caller));
    return { status: res.status, ids: res.status === 200 ? (res.body.data as Array<{ id: string }>).map((h) => h.id).sort() : [] };
  };
  const record = async (ws: string, db: string, name: string, who = people.admin) =>
    (await t.request.post(`/api/v1/workspaces/${ws}/databases/${db}/records`).set(who.auth).send({ values: { name } }).expect(201)).body.id as string;

  before(async () => {
    t = await startTestKernel({});
    people = await createPeople(t);
    w = await buildWorld(t, people, { vault: true });
    inD = await record(w.ws, w.databaseD, 'Zephyr in D');
    inVault = await record(w.ws, w.vault!.database, 'Zephyr in Vault');
    theirs = await record(w.otherWs, w.foreign.database, 'Zephyr elsewhere', people.outsider);
    await waitUntil('the spaces and databases named in the index', async () => (await search('admin', 'vault')).ids.includes(w.vault!.database) && (await search('admin', 't')).ids.includes(w.spaceT));
  });
  after(() => t.stop());

  it('finds records, databases and spaces only where the caller sees them', async () => {
    const expected: Record<Caller, { status: number; zephyr?: string[]; vault?: string[]; spaces?: string[] }> = {
      root: { status: 404 },
      admin: { status: 200, zephyr: [inD, inVault], vault: [w.vault!.database], spaces: [w.spaceS, w.spaceT] },
      creator: { status: 200, zephyr: [inD, inVault], vault: [w.vault!.database], spaces: [w.spaceS, w.spaceT] },
      editor: { status: 200, zephyr: [inD, inVault], vault: [w.vault!.database], spaces: [w.spaceS, w.spaceT] },
      member: { status: 200, zephyr: [inD, inVault], vault: [w.vault!.database], spaces: [w.spaceS, w.spaceT] },
      // D's record "Links the vault" names Vault only in its link and lookup, which are never indexed.
      guest_in: { status: 200, zephyr: [inD], vault: [], spaces: [w.spaceS] },
      guest_out: { status: 200, zephyr: [inVault], vault: [w.vault!.database], spaces: [w.spaceT] },
      pat_read: { status: 200, zephyr: [inD, inVault], vault: [w.vault!.database], spaces: [w.spaceS, w.spaceT] },
      pat_write: { status: 200, zephyr: [inD, inVault], vault: [w.vault!.database], spaces: [w.spaceS, w.spaceT] },
      pat_admin: { status: 200, zephyr: [inD, inVault], vault: [w.vault!.database], spaces: [w.spaceS, w.spaceT] },
      outsider: { status: 404 },
      anonymous: { status: 401 },
    };
    for (const caller of CALLERS) {
      const want = expected[caller];
      const zephyr = await search(caller, 'zephyr');
      assert.equal(zephyr.status, want.status, caller);
      if (want.status !== 200) continue;
      assert.deepEqual(zephyr.ids, [...want.zephyr!].sort(), `${caller}: zephyr`);
      assert.deepEqual((await search(caller, 'vault', w.ws, 'databases')).ids, want.vault, `${caller}: vault`);
      const spaces = (await t.request.get(`/api/v1/workspaces/${w.ws}/search`).query({ q: 's t', types: 'spaces' }).set(credentialOf(w, caller))).body.data;
      assert.deepEqual(spaces, [], 'both words required');
      const eachSpace = [...(await search(caller, 's', w.ws, 'spaces')).ids, ...(await search(caller, 't', w.ws, 'spaces')).ids];
      assert.deepEqual(eachSpace.sort(), [...want.spaces!].sort(), `${caller}: spaces`);
    }
  });

  it('never shows another workspace, even to someone who is a member of both', async () => {
    assert.deepEqual((await search('outsider', 'zephyr', w.otherWs)).ids, [theirs]);
    assert.ok(!(await search('member', 'zephyr')).ids.includes(theirs));
    assert.ok(!(await search('admin', 'theirs')).ids.includes(w.foreign.database));
    const inTheirs = await t.request.get(`/api/v1/workspaces/${w.otherWs}/search`).query({ q: 'zephyr' }).set(people.member.auth).expect(200);
    assert.deepEqual(inTheirs.body.data.map((h: { id: string }) => h.id), [theirs]);
  });
});
