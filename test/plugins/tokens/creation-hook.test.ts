import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestKernel, type TestKernel, signUp } from '../../../core/testing.ts';
import { definePlugin } from '../../../core/plugin.ts';
import { notFound } from '../../../core/errors.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import type { TokenCreation } from '../../../plugins/tokens/hooks.ts';

/** Stands in for the workspaces plugin (not loaded here): only workspaces it knows may get tokens. */
const known = new Set<string>();
const seen: TokenCreation[] = [];
const membership = definePlugin({
  id: 'membership-stub',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { tokens: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('tokens.creation').beforeCreate.tapPromise('membership', async (creation) => {
      seen.push(creation);
      if (!known.has(creation.workspaceId)) throw notFound('No such workspace.');
    });
  },
});

describe('tokens: the tokens.creation hook lets another plugin refuse a token', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [...builtinPlugins.filter((p) => ['system', 'auth', 'tokens'].includes(p.id)), membership] });
  });
  after(() => t.stop());

  it('creates the token when the tap allows it, and refuses it (nothing stored) when the tap throws', async () => {
    const user = await signUp(t);
    const allowed = randomUUID();
    known.add(allowed);
    await t.request.post('/api/v1/me/tokens').set(user.auth).send({ name: 'ok', workspace_id: allowed, scope: 'write' }).expect(201);
    const { trx, ...creation } = seen.at(-1)!;
    assert.deepEqual(creation, { userId: user.id, workspaceId: allowed, scope: 'write', allowRunButton: false });
    assert.equal(typeof trx, 'function', 'the tap gets the creating transaction');

    const res = await t.request.post('/api/v1/me/tokens').set(user.auth).send({ name: 'no', workspace_id: randomUUID() }).expect(404);
    assert.equal(res.body.code, 'not_found');
    const rows = await t.db('personal_access_tokens').where('user_id', user.id);
    assert.deepEqual(rows.map((r) => r.name), ['ok']);
  });
});
