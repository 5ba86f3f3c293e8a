import assert from 'node:assert/strict';
import type { PluginContext } from '../../../core/plugin.ts';
import { createProviderHooks } from '../../../plugins/integrations/hooks.ts';
import { createSourceKindHooks } from '../../../plugins/sources/hooks.ts';
import googleCalendarPlugin, { createGoogleCalendarPlugin } from '../../../plugins/integration-google-calendar/index.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

/** `register` run against the hook sets it taps, built by their owners' own factories, with and without the sources plugin. */
describe('integration-google-calendar: the plugin', () => {
  storageIndependent();

  function registered(withSources: boolean) {
    const hooks = { 'integrations.providers': createProviderHooks(), 'sources.kinds': createSourceKindHooks() };
    const asked: string[] = [];
    const ctx = {
      options: { apiUrl: 'http://127.0.0.1:9/calendar/v3' },
      has: (id: string) => id === 'integrations' || (withSources && id === 'sources'),
      hooksOf: (key: keyof typeof hooks) => {
        asked.push(key);
        return hooks[key];
      },
    } as unknown as PluginContext;
    createGoogleCalendarPlugin().register!(ctx);
    return { providers: hooks['integrations.providers'].providers.call([]), kinds: hooks['sources.kinds'].kinds.call([]), asked };
  }

  it('depends on integrations, and on sources optionally', () => {
    assert.equal(googleCalendarPlugin.id, 'integration-google-calendar');
    assert.deepEqual(googleCalendarPlugin.dependsOn, { integrations: '^1.0.0' });
    assert.deepEqual(googleCalendarPlugin.optionalDependsOn, { sources: '^1.0.0' });
  });

  it('with the sources plugin, adds the google_calendar.events kind beside the provider, which names it', () => {
    const { providers, kinds } = registered(true);
    assert.deepEqual(providers.map((p) => [p.id, p.sources]), [['google-calendar', ['google_calendar.events']]]);
    assert.deepEqual(kinds.map((k) => [k.id, k.provider]), [['google_calendar.events', 'google-calendar']]);
  });

  it('without it, adds the provider only and does not reach for the sources hook set', () => {
    const { providers, kinds, asked } = registered(false);
    assert.deepEqual(providers.map((p) => p.id), ['google-calendar']);
    assert.deepEqual(kinds, []);
    assert.deepEqual(asked, ['integrations.providers']);
  });
});
