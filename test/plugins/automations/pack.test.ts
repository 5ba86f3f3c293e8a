import assert from 'node:assert/strict';
import { createWorkspace } from '../../../core/testing.ts';
import { automationWorld, type AutomationWorld } from './world.ts';

type Pack = { resources: Record<string, Array<Record<string, unknown>>> };

describe('automations and buttons in packs', function () {
  this.timeout(60000);
  let w: AutomationWorld;
  let pressed: string;
  let hookUrl: string;
  let pack: Pack;
  let away: string;

  /** A new workspace with a space to install into. */
  const elsewhere = async (name: string) => {
    const ws = (await createWorkspace(w.t, w.admin, name)).id;
    const space = (await w.t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(w.admin.auth).send({ name: 'S' }).expect(201)).body.id as string;
    return { ws, install: (body: object) => w.t.request.post(`/api/v1/workspaces/${ws}/packs/install`).set(w.admin.auth).send({ ...body, space_id: space }) };
  };
  let awayInstall: (body: object) => ReturnType<AutomationWorld['t']['request']['post']>;

  const automation = (body: Record<string, unknown>) =>
    w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ database_id: w.db, enabled: true, ...body }).expect(201).then((r) => r.body as { id: string; hook_url?: string });
  const awayApi = (path: string) => `/api/v1/workspaces/${away}${path}`;

  before(async () => {
    w = await automationWorld({ also: ['packs'] });
    await w.t.request.post(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).send({ name: 'Status', api_name: 'status', type: 'single_select', options: { choices: [{ label: 'Won' }, { label: 'Lost' }] } }).expect(201);
    const fields = (await w.t.request.get(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).expect(200)).body.data as Array<{ api_name: string; options: { choices?: Array<{ id: string; label: string }> } }>;
    const won = fields.find((f) => f.api_name === 'status')!.options.choices!.find((c) => c.label === 'Won')!.id;
    await automation({ name: 'On stage', trigger: { type: 'record_updated', fields: ['stage'] }, conditions: { and: [{ field: 'amount', op: 'gte', value: 10 }, { field: 'status', op: 'eq', value: won }] }, actions: [{ type: 'update_record', values: { note: 'Moved to {{record.stage}}' } }] });
    await automation({ name: 'Log it', trigger: { type: 'record_created' }, actions: [{ type: 'create_record', database_id: w.logDb, values: { name: 'New deal {{record.name}}' } }] });
    await automation({ name: 'Tell Eddie', trigger: { type: 'record_created' }, actions: [{ type: 'notify', user_ids: [w.editor.id], text: 'New deal' }] });
    hookUrl = (await automation({ name: 'From outside', trigger: { type: 'inbound_webhook' }, actions: [{ type: 'update_record', values: { note: 'hook' } }] })).hook_url!;
    pressed = (await automation({ name: 'Quote', trigger: { type: 'button' }, actions: [{ type: 'update_record', values: { note: 'Quoted' } }] })).id;
    await w.t.request.post(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).send({ name: 'Quote', api_name: 'quote', type: 'button', options: { label: 'Send quote', automation_id: pressed } }).expect(201);
    pack = (await w.t.request.post(w.api('/packs/export')).set(w.admin.auth).send({ database_ids: [w.db, w.logDb] }).expect(200)).body;
    ({ ws: away, install: awayInstall } = await elsewhere('Away'));
  });
  after(() => w.t.stop());

  it('exports the automations whose every name travels: options by label, databases by ref, never a member, never on', () => {
    const byName = new Map(pack.resources.automation.map((a) => [a.name, a]));
    assert.deepEqual([...byName.keys()].sort(), ['From outside', 'Log it', 'On stage', 'Quote'], 'the one naming a member stays home');
    const deals = pack.resources.database.find((d) => d.name === 'Deals')!.ref;
    const log = pack.resources.database.find((d) => d.name === 'Log')!.ref;
    assert.deepEqual(byName.get('On stage'), {
      ref: byName.get('On stage')!.ref,
      database: deals,
      name: 'On stage',
      trigger: { type: 'record_updated', fields: ['stage'] },
      conditions: { and: [{ field: 'amount', op: 'gte', value: 10 }, { field: 'status', op: 'eq', value: 'Won' }] },
      actions: [{ type: 'update_record', values: { note: 'Moved to {{record.stage}}' } }],
    });
    assert.deepEqual(byName.get('Log it')!.actions, [{ type: 'create_record', database_id: log, values: { name: 'New deal {{record.name}}' } }]);
    assert.ok(!pack.resources.field.some((f) => f.type === 'button'), 'a button is not a field resource');
    assert.deepEqual(pack.resources.button, [{ ref: pack.resources.button[0].ref, database: deals, name: 'Quote', api_name: 'quote', label: 'Send quote', automation: byName.get('Quote')!.ref }]);
    const text = JSON.stringify(pack);
    assert.ok(!text.includes(w.editor.id) && !text.includes(w.logDb) && !text.includes(pressed) && !text.includes(hookUrl.split('/').pop()!));
    assert.ok(!/"enabled"/.test(text));
  });

  it('leaves home an automation writing to a database outside the pack', async () => {
    const only = (await w.t.request.post(w.api('/packs/export')).set(w.admin.auth).send({ database_ids: [w.db] }).expect(200)).body as Pack;
    assert.deepEqual(only.resources.automation.map((a) => a.name).sort(), ['From outside', 'On stage', 'Quote']);
  });

  it('installs them disabled with new ids, a new hook token, and the button naming the new automation', async () => {
    const installed = (await awayInstall({ pack }).expect(201)).body;
    const list = (await w.t.request.get(awayApi('/automations')).set(w.admin.auth).expect(200)).body.data as Array<{ id: string; name: string; enabled: boolean; database_id: string; actions: Array<Record<string, unknown>>; conditions: unknown }>;
    assert.deepEqual(list.map((a) => a.name).sort(), ['From outside', 'Log it', 'On stage', 'Quote']);
    assert.ok(list.every((a) => !a.enabled));
    const databases = installed.created.database as Array<{ id: string; ref: string }>;
    const newLog = databases.find((d) => d.ref === pack.resources.database.find((x) => x.name === 'Log')!.ref)!.id;
    const newDeals = databases.find((d) => d.id !== newLog)!.id;
    assert.equal(list.find((a) => a.name === 'Log it')!.actions[0].database_id, newLog);
    assert.ok(list.every((a) => a.database_id === newDeals));

    // The old hook URL still reaches only the old automation; the new one has a token of its own, made by rotating.
    const inbound = list.find((a) => a.name === 'From outside')!;
    const rotated = (await w.t.request.post(awayApi(`/automations/${inbound.id}/rotate-hook`)).set(w.admin.auth).expect(200)).body;
    assert.notEqual(rotated.hook_url, hookUrl);

    const quote = list.find((a) => a.name === 'Quote')!;
    const field = ((await w.t.request.get(awayApi(`/databases/${newDeals}/fields`)).set(w.admin.auth).expect(200)).body.data as Array<{ api_name: string; options: Record<string, unknown> }>).find((f) => f.api_name === 'quote')!;
    assert.deepEqual(field.options, { label: 'Send quote', automation_id: quote.id });
    const record = (await w.t.request.post(awayApi(`/databases/${newDeals}/records`)).set(w.admin.auth).send({ values: { name: 'Deal' } }).expect(201)).body.id;
    const press = () => w.t.request.post(awayApi(`/databases/${newDeals}/records/${record}/buttons/quote/press`)).set(w.admin.auth);
    assert.equal((await press().expect(409)).body.code, 'automation_disabled');
    await w.t.request.patch(awayApi(`/automations/${quote.id}`)).set(w.admin.auth).send({ enabled: true }).expect(200);
    await press().expect(202);
  });

  it('refuses an automation naming a field the pack lacks, at its pointer, installing nothing', async () => {
    const bad = structuredClone(pack);
    const i = bad.resources.automation.findIndex((a) => a.name === 'On stage');
    bad.resources.automation[i].trigger = { type: 'record_updated', fields: ['nowhere'] };
    const { ws: target, install } = await elsewhere('Target');
    const res = await install({ pack: bad }).expect(422);
    assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === `/pack/resources/automation/${i}/trigger/fields/0`), JSON.stringify(res.body.errors));
    assert.deepEqual((await w.t.request.get(`/api/v1/workspaces/${target}/automations`).set(w.admin.auth).expect(200)).body.data, []);
  });
});
