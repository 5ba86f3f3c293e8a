import assert from 'node:assert/strict';
import type { Middleware } from 'koa';
import { definePlugin } from '../../core/plugin.ts';
import { isUser, type Principal } from '../../core/principal.ts';
import { startTestKernel, type TestKernel, signUp } from '../../core/testing.ts';
import system from '../../plugins/system/index.ts';
import auth from '../../plugins/auth/index.ts';

/** `http.middleware` stages are named: where a plugin's middleware runs depends neither on numbers nor on plugin order. */
describe('http.middleware stages', () => {
  let t: TestKernel;
  const order: string[] = [];
  const record = (name: string): Middleware => async (ctx, next) => {
    order.push(`${name}:${isUser((ctx.state as { principal: Principal }).principal) ? 'user' : 'anonymous'}`);
    await next();
  };

  // Registered late, asks to run after authentication; the next plugin's entry runs before it.
  const late = definePlugin({
    id: 'late-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.hooks.http.middleware.tap('late', (entries) => [...entries, { name: 'late', middleware: record('after'), stage: 'afterAuthentication' }]);
    },
  });
  const early = definePlugin({
    id: 'early-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.hooks.http.middleware.tap('early', (entries) => [...entries, { name: 'early', middleware: record('before') }]);
    },
  });

  before(async () => {
    t = await startTestKernel({ plugins: [system, auth, late, early] });
  });
  after(() => t.stop());

  it('runs before-authentication middleware first, as anonymous, and after-authentication middleware with the user', async () => {
    const user = await signUp(t);
    order.length = 0;
    await t.request.get('/api/v1/me').set(user.auth).expect(200);
    assert.deepEqual(order, ['before:anonymous', 'after:user']);
  });
});
