import type { Template } from '../packs/public.ts';
import { PackBuilder } from './build.ts';

/** Projects with their tasks: a board by status, a calendar of due dates, a form to ask for work. */
export function projectTracker(): Template {
  const b = new PackBuilder({ name: 'Projects', description: 'Projects, their tasks, and where each one stands.' });
  b.database('projects', 'Projects', 'What the team is working on.', [
    { name: 'Project', api_name: 'project', type: 'text' },
    { name: 'Status', api_name: 'status', type: 'single_select', choices: [['Planned', 'gray'], ['Active', 'blue'], ['On hold', 'yellow'], ['Done', 'green']] },
    { name: 'Start', api_name: 'start', type: 'date' },
    { name: 'Due', api_name: 'due', type: 'date' },
    { name: 'Budget', api_name: 'budget', type: 'currency', options: { code: 'USD', symbol: '$', precision: 2 } },
  ]);
  b.database('tasks', 'Tasks', 'Every piece of work, on a board and a calendar.', [
    { name: 'Task', api_name: 'task', type: 'text' },
    { name: 'Status', api_name: 'status', type: 'single_select', choices: [['To do', 'gray'], ['In progress', 'blue'], ['Review', 'purple'], ['Done', 'green']] },
    { name: 'Priority', api_name: 'priority', type: 'single_select', choices: [['Low', 'teal'], ['Medium', 'yellow'], ['High', 'red']] },
    { name: 'Due', api_name: 'due', type: 'date' },
    { name: 'Estimate (hours)', api_name: 'estimate_hours', type: 'number', options: { precision: 1 } },
    { name: 'Notes', api_name: 'notes', type: 'long_text' },
  ]);
  b.relation('project-tasks', 'projects', 'tasks', 'one_to_many', ['Tasks', 'tasks'], ['Project', 'project']);
  b.computed('projects', { name: 'Task count', api_name: 'task_count', type: 'count', options: { link_field_id: 'tasks' } });
  b.computed('projects', { name: 'Hours planned', api_name: 'hours_planned', type: 'rollup', options: { link_field_id: 'tasks', target_field_id: 'estimate_hours', function: 'sum' } });
  b.computed('tasks', { name: 'Project status', api_name: 'project_status', type: 'lookup', options: { link_field_id: 'project', target_field_id: 'status' } });

  b.view('projects', 'all', { name: 'All projects', type: 'grid', is_default: true, sorts: [{ field: 'due', direction: 'asc' }] });
  b.view('projects', 'active', { name: 'Active', type: 'grid', filter: { field: 'status', op: 'is_any_of', value: ['Active'] } });
  b.view('tasks', 'board', { name: 'Board', type: 'kanban', is_default: true, group_by: 'status' });
  b.view('tasks', 'calendar', { name: 'Due dates', type: 'calendar', options: { date_field: 'due' } });
  b.view('tasks', 'request', {
    name: 'Request a task',
    type: 'form',
    options: { title: 'Ask the team for something', submit_label: 'Send request', success_message: 'Thanks, we will pick it up.', required_fields: ['task'] },
    hidden_fields: ['status', 'estimate_hours', 'project'],
  });

  b.record('projects', 'website', { project: 'Website relaunch', status: 'Active', start: '2026-01-12', due: '2026-03-31', budget: 12000, tasks: ['sitemap', 'homepage', 'launch-post'] });
  b.record('projects', 'survey', { project: 'Customer survey', status: 'Planned', start: '2026-04-01', due: '2026-04-30', budget: 1500, tasks: ['questions'] });
  b.record('tasks', 'sitemap', { task: 'Draft the sitemap', status: 'Done', priority: 'High', due: '2026-01-23', estimate_hours: 4 });
  b.record('tasks', 'homepage', { task: 'Design the home page', status: 'In progress', priority: 'High', due: '2026-02-20', estimate_hours: 16 });
  b.record('tasks', 'launch-post', { task: 'Write the launch post', status: 'To do', priority: 'Medium', due: '2026-03-25', estimate_hours: 3, notes: 'Link the new pricing page.' });
  b.record('tasks', 'questions', { task: 'Pick the survey questions', status: 'To do', priority: 'Low', due: '2026-04-08', estimate_hours: 2 });
  return {
    id: 'project-tracker',
    plugin: 'starter-packs',
    name: 'Project tracker',
    description: 'Projects and their tasks: a board by status, a calendar of due dates, hours rolled up per project and a form to request work.',
    categories: ['project management', 'team'],
    pack: b.build('Project tracker', 'Projects and their tasks, with a board, a calendar and a request form.', '1.0.0'),
  };
}
