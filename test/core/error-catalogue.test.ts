import assert from 'node:assert/strict';
import { AppError, defineErrors, KernelErrors, notFound } from '../../core/errors.ts';
import { storageIndependent } from '../fixtures/suite-runs.ts';

describe('error catalogue', () => {
  storageIndependent();
  const Errors = defineErrors({
    last_view: { status: 409, when: "Deleting the database's last view", create: () => 'Keep one view.' },
    option_in_use: { status: 409, when: 'The option is in use', create: (usage: number) => ({ detail: `${usage} records.`, extensions: { usage_count: usage } }) },
  });

  it('builds coded AppErrors whose code is the entry key, with the title of its status and its members', () => {
    const err = Errors.option_in_use(3);
    assert.ok(err instanceof AppError);
    assert.deepEqual([err.status, err.code, err.title, err.detail, err.extensions], [409, 'option_in_use', 'Conflict', '3 records.', { usage_count: 3 }]);
    assert.deepEqual([Errors.last_view.code, Errors.last_view.status, Errors.last_view.when], ['last_view', 409, "Deleting the database's last view"]);
  });

  it("keeps the kernel's helpers as entries of its own catalogue", () => {
    assert.equal(notFound, KernelErrors.not_found);
    assert.equal(notFound().detail, 'The resource does not exist.');
    assert.deepEqual(KernelErrors.rate_limited(7).headers, { 'Retry-After': '7' });
  });

  it('refuses a code that is not snake_case', () => {
    assert.throws(() => defineErrors({ lastView: { status: 409, when: 'x', create: () => 'x' } }), /snake_case/);
  });
});
