import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formWorld, type FormWorld } from './setup.ts';
import { cases, SEED } from '../../fixtures/randomised.ts';

describe('public: any submission', () => {
  let w: FormWorld;

  before(async () => {
    w = await formWorld({ plugins: { public: { options: { submissionsPerMinute: 1000 } } } });
  });
  after(() => w.t.stop());

  it('is stored or refused (400 for hostile keys, else 422 with pointers), never a 5xx', async () => {
    const names = ['name', 'email', 'score', 'stage', 'done', 'owner', 'note', 'created_at', 'id', '__proto__', 'constructor', 'a/b~c'];
    const values = fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string()), fc.oneof(fc.anything(), fc.constantFrom('Open', 'ada@example.com', 1.5, true, w.member.id)));
    const body = fc.record({ values, hp: fc.constantFrom(undefined, '') }, { requiredKeys: ['values'] });
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        const before = await w.t.db('kernel_events').where({ name: 'record.created' }).count({ n: '*' }).first();
        const res = await w.t.request.post(w.form()).send(sent);
        const after = await w.t.db('kernel_events').where({ name: 'record.created' }).count({ n: '*' }).first();
        assert.ok([201, 400, 422].includes(res.status), `${res.status} ${res.text} for ${JSON.stringify(sent)}`);
        assert.equal(Number(after!.n) - Number(before!.n), res.status === 201 ? 1 : 0);
        if (res.status === 422) assert.ok(res.body.errors.every((e: { pointer: string }) => e.pointer.startsWith('/values')), res.text);
      }),
      { numRuns: cases(80), seed: SEED },
    );
  });
});
