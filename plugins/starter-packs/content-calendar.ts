import type { Template } from '../packs/public.ts';
import { PackBuilder } from './build.ts';

/** Posts planned on a calendar, grouped in campaigns, with a form for pitching ideas. */
export function contentCalendar(): Template {
  const b = new PackBuilder({ name: 'Content', description: 'What we publish, where and when.' });
  b.database('campaigns', 'Campaigns', 'Themes that posts belong to.', [
    { name: 'Campaign', api_name: 'campaign', type: 'text' },
    { name: 'Goal', api_name: 'goal', type: 'long_text' },
    { name: 'Start', api_name: 'start', type: 'date' },
    { name: 'End', api_name: 'end', type: 'date' },
  ]);
  b.database('posts', 'Posts', 'Every piece of content, from idea to published.', [
    { name: 'Title', api_name: 'title', type: 'text' },
    { name: 'Status', api_name: 'status', type: 'single_select', choices: [['Idea', 'gray'], ['Drafting', 'yellow'], ['Scheduled', 'blue'], ['Published', 'green']] },
    { name: 'Channels', api_name: 'channels', type: 'multi_select', choices: [['Blog', 'blue'], ['Newsletter', 'purple'], ['LinkedIn', 'teal'], ['Video', 'red']] },
    { name: 'Publish on', api_name: 'publish_on', type: 'date' },
    { name: 'Link', api_name: 'link', type: 'url' },
    { name: 'Brief', api_name: 'brief', type: 'long_text' },
  ]);
  b.relation('campaign-posts', 'campaigns', 'posts', 'one_to_many', ['Posts', 'posts'], ['Campaign', 'campaign']);
  b.computed('campaigns', { name: 'Post count', api_name: 'post_count', type: 'count', options: { link_field_id: 'posts' } });

  b.view('campaigns', 'all', { name: 'All campaigns', type: 'grid', is_default: true, sorts: [{ field: 'start', direction: 'asc' }] });
  b.view('posts', 'calendar', { name: 'Calendar', type: 'calendar', is_default: true, options: { date_field: 'publish_on' } });
  b.view('posts', 'pipeline', { name: 'Pipeline', type: 'kanban', group_by: 'status' });
  b.view('posts', 'pitch', {
    name: 'Pitch an idea',
    type: 'form',
    options: { title: 'Pitch a post', description: 'One idea per submission.', submit_label: 'Pitch it', required_fields: ['title', 'brief'] },
    hidden_fields: ['status', 'publish_on', 'link', 'campaign'],
  });

  b.record('campaigns', 'spring', { campaign: 'Spring launch', goal: 'Get 500 sign-ups for the new plan.', start: '2026-03-01', end: '2026-04-30', posts: ['announce', 'behind', 'walkthrough'] });
  b.record('posts', 'announce', { title: 'Announcing version 2', status: 'Scheduled', channels: ['Blog', 'Newsletter'], publish_on: '2026-04-02', brief: 'What is new and why it matters.' });
  b.record('posts', 'behind', { title: 'Behind the scenes', status: 'Drafting', channels: ['LinkedIn'], publish_on: '2026-04-09' });
  b.record('posts', 'walkthrough', { title: 'Launch walkthrough', status: 'Idea', channels: ['Video'], brief: 'Five minutes, screen recording.' });
  return {
    id: 'content-calendar',
    plugin: 'starter-packs',
    name: 'Content calendar',
    description: 'Posts on a calendar and a pipeline board, grouped in campaigns, with a form for pitching ideas.',
    categories: ['marketing', 'content'],
    pack: b.build('Content calendar', 'Posts on a calendar, grouped in campaigns, with a pitch form.', '1.0.0'),
  };
}
