import type { Template } from '../packs/public.ts';
import { PackBuilder } from './build.ts';

/** Companies, the people there and the deals with them: a pipeline by stage, its value per company. */
export function crm(): Template {
  const b = new PackBuilder({ name: 'Sales', description: 'Companies, contacts and the deals in the pipeline.' });
  b.database('companies', 'Companies', 'Who we sell to.', [
    { name: 'Company', api_name: 'company', type: 'text' },
    { name: 'Industry', api_name: 'industry', type: 'single_select', choices: [['Software', 'blue'], ['Retail', 'orange'], ['Health', 'green'], ['Finance', 'purple']] },
    { name: 'Website', api_name: 'website', type: 'url' },
    { name: 'Notes', api_name: 'notes', type: 'long_text' },
  ]);
  b.database('contacts', 'Contacts', 'The people we talk to.', [
    { name: 'Name', api_name: 'name', type: 'text' },
    { name: 'Email', api_name: 'email', type: 'email' },
    { name: 'Phone', api_name: 'phone', type: 'phone' },
    { name: 'Role', api_name: 'role', type: 'text' },
  ]);
  b.database('deals', 'Deals', 'Every opportunity, from first call to signature.', [
    { name: 'Deal', api_name: 'deal', type: 'text' },
    { name: 'Stage', api_name: 'stage', type: 'single_select', choices: [['Lead', 'gray'], ['Qualified', 'blue'], ['Proposal', 'yellow'], ['Won', 'green'], ['Lost', 'red']] },
    { name: 'Value', api_name: 'value', type: 'currency', options: { code: 'USD', symbol: '$', precision: 2 } },
    { name: 'Close date', api_name: 'close_date', type: 'date' },
  ]);
  b.relation('company-contacts', 'companies', 'contacts', 'one_to_many', ['Contacts', 'contacts'], ['Company', 'company']);
  b.relation('company-deals', 'companies', 'deals', 'one_to_many', ['Deals', 'deals'], ['Company', 'company']);
  b.computed('companies', { name: 'Pipeline value', api_name: 'pipeline_value', type: 'rollup', options: { link_field_id: 'deals', target_field_id: 'value', function: 'sum' } });
  b.computed('companies', { name: 'Contact count', api_name: 'contact_count', type: 'count', options: { link_field_id: 'contacts' } });

  b.view('companies', 'all', { name: 'All companies', type: 'grid', is_default: true, sorts: [{ field: 'company', direction: 'asc' }] });
  b.view('contacts', 'all', { name: 'All contacts', type: 'grid', is_default: true });
  b.view('contacts', 'add', { name: 'Add a contact', type: 'form', options: { title: 'New contact', submit_label: 'Add', required_fields: ['name', 'email'] } });
  b.view('deals', 'pipeline', { name: 'Pipeline', type: 'kanban', is_default: true, group_by: 'stage' });
  b.view('deals', 'won', { name: 'Won', type: 'grid', filter: { field: 'stage', op: 'is_any_of', value: ['Won'] }, sorts: [{ field: 'close_date', direction: 'desc' }] });

  b.record('companies', 'acme', { company: 'Acme Tools', industry: 'Software', website: 'https://acme.example', contacts: ['ana', 'ben'], deals: ['acme-plan', 'acme-seats'] });
  b.record('companies', 'northwind', { company: 'Northwind Stores', industry: 'Retail', website: 'https://northwind.example', contacts: ['chloe'], deals: ['northwind-pilot'] });
  b.record('contacts', 'ana', { name: 'Ana Ruiz', email: 'ana@acme.example', role: 'CTO' });
  b.record('contacts', 'ben', { name: 'Ben Okafor', email: 'ben@acme.example', phone: '+1 555 0100', role: 'Head of operations' });
  b.record('contacts', 'chloe', { name: 'Chloé Martin', email: 'chloe@northwind.example', role: 'Buyer' });
  b.record('deals', 'acme-plan', { deal: 'Acme annual plan', stage: 'Proposal', value: 24000, close_date: '2026-12-15' });
  b.record('deals', 'acme-seats', { deal: 'Acme extra seats', stage: 'Won', value: 3000, close_date: '2026-10-02' });
  b.record('deals', 'northwind-pilot', { deal: 'Northwind pilot', stage: 'Qualified', value: 8000, close_date: '2027-01-20' });
  return {
    id: 'crm',
    plugin: 'starter-packs',
    name: 'CRM',
    description: 'Companies, contacts and deals: a pipeline board by stage, the pipeline value per company and a form to add contacts.',
    categories: ['sales', 'crm'],
    pack: b.build('CRM', 'Companies, contacts and deals, with a pipeline board.', '1.0.0'),
  };
}
