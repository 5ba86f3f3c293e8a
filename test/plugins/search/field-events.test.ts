import assert from 'node:assert/strict';
import { changesText } from '../../../plugins/search/follow.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

const field = (type: string, extra: Record<string, unknown> = {}) => ({ id: 'f', api_name: 'f', type, is_title: false, options: {}, ...extra });
const choices = (labels: string[]) => ({ choices: labels.map((label, i) => ({ id: String(i), label })) });

describe('search: which field events read a database again', () => {
  storageIndependent();
  it('reads again when the text of entries can change', () => {
    assert.equal(changesText('field.converted', { before: field('number'), after: field('text') }), true);
    assert.equal(changesText('field.converted', { before: field('text'), after: field('number') }), true);
    assert.equal(changesText('field.deleted', { field: field('long_text') }), true);
    assert.equal(changesText('field.restored', { field: field('email') }), true);
    assert.equal(changesText('field.updated', { before: field('single_select', { options: choices(['Open']) }), after: field('single_select', { options: choices(['Opened']) }) }), true);
    // An option renamed or removed names no field: its labels may be in entries.
    assert.equal(changesText('field.updated', { field_id: 'f', option: { id: '0', label: 'New' } }), true);
  });

  it('reads nothing again for a rename, or for fields that are not text', () => {
    assert.equal(changesText('field.updated', { before: field('text', { name: 'A' }), after: field('text', { name: 'B' }) }), false);
    assert.equal(changesText('field.deleted', { field: field('number') }), false);
    assert.equal(changesText('field.converted', { before: field('number'), after: field('currency') }), false);
    assert.equal(changesText('field.updated', { before: field('user'), after: field('user', { options: { multiple: true } }) }), false);
  });
});
