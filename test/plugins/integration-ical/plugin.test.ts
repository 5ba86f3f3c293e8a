import assert from 'node:assert/strict';
import type { PluginContext } from '../../../core/plugin.ts';
import { compile } from '../../../core/schema.ts';
import { createProviderHooks } from '../../../plugins/integrations/hooks.ts';
import { createSourceKindHooks } from '../../../plugins/sources/hooks.ts';
import icalPlugin, { createIcalPlugin } from '../../../plugins/integration-ical/index.ts';
import { icalEventsKind } from '../../../plugins/integration-ical/kind.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

/**
 * The kernel cannot start with this plugin until the sources plugin is in: `register` is run against the two hook sets
 * it taps, built by their owners' own factories.
 */
describe('integration-ical: the plugin', () => {
  storageIndependent();

  it('depends on integrations and sources, and adds the ical provider and the ical.events kind', async () => {
    assert.equal(icalPlugin.id, 'integration-ical');
    assert.deepEqual(icalPlugin.dependsOn, { integrations: '^1.0.0', sources: '^1.0.0' });
    const hooks = { 'integrations.providers': createProviderHooks(), 'sources.kinds': createSourceKindHooks() };
    const ctx = { hooksOf: (key: keyof typeof hooks) => hooks[key] } as unknown as PluginContext;
    createIcalPlugin().register!(ctx);

    const [provider] = hooks['integrations.providers'].providers.call([]);
    assert.deepEqual(
      { id: provider.id, name: provider.name, categories: provider.categories, auth: provider.auth, sources: provider.sources },
      { id: 'ical', name: 'iCalendar feed', categories: ['calendar'], auth: { type: 'none' }, sources: ['ical.events'] },
    );
    const outcome = await provider.test({});
    assert.equal(outcome.ok, true);
    assert.equal(outcome.account, null);
    assert.match(outcome.detail, /needs no connection/);

    const kinds = hooks['sources.kinds'].kinds.call([]);
    assert.deepEqual(kinds.map((k) => [k.id, k.provider]), [['ical.events', null]]);
    assert.equal(typeof kinds[0].check, 'function');
  });

  it('takes a config of an http(s) url of at most 2048 characters and two windows in days, defaulting to 30 back and 365 ahead', () => {
    const validate = compile(icalEventsKind().configSchema);
    const config: Record<string, unknown> = { url: 'https://calendar.example.com/team.ics' };
    assert.equal(validate(config), true);
    assert.deepEqual(config, { url: 'https://calendar.example.com/team.ics', past_days: 30, future_days: 365 });
    assert.equal(validate({ url: 'http://example.com/a.ics', past_days: 0, future_days: 3650 }), true);
    for (const bad of [
      {},
      { url: 'ftp://example.com/a.ics' },
      { url: 'not a url' },
      { url: `https://example.com/${'a'.repeat(2048)}` },
      { url: 'https://example.com/a.ics', past_days: -1 },
      { url: 'https://example.com/a.ics', past_days: 3651 },
      { url: 'https://example.com/a.ics', future_days: 0 },
      { url: 'https://example.com/a.ics', future_days: 1.5 },
      { url: 'https://example.com/a.ics', token: 'x' },
    ])
      assert.equal(validate(bad), false, JSON.stringify(bad).slice(0, 80));
  });
});
