import { instantCell, LONG_TEXT_MAX, textCell, TEXT_MAX, urlCell, type SourceProperty, type SourceRow } from '../sources/public.ts';

/**
 * The fields a `github.issues` source's database gets, and each issue of GitHub's REST API as a row of them. Every value
 * is one the databases field type takes through the API (its `fromApi`): what a type would refuse becomes null (an empty
 * cell) or is cut to the type's length, so no issue is refused for one odd value.
 */

export function issueProperties(): SourceProperty[] {
  return [
    { key: 'id', name: 'GitHub ID', type: 'text', unique: true },
    { key: 'number', name: 'Number', type: 'number', options: { precision: 0 } },
    { key: 'title', name: 'Title', type: 'text' },
    {
      key: 'state',
      name: 'State',
      type: 'single_select',
      options: { choices: [{ label: 'open', color: 'green' }, { label: 'closed', color: 'purple' }] },
    },
    { key: 'body', name: 'Body', type: 'long_text' },
    { key: 'author', name: 'Author', type: 'text' },
    { key: 'assignees', name: 'Assignees', type: 'text' },
    { key: 'labels', name: 'Labels', type: 'text' },
    { key: 'url', name: 'URL', type: 'url' },
    // Not `created_at` / `updated_at`: every database has those (when the record was made and last changed here).
    { key: 'github_created_at', name: 'Created on GitHub', type: 'datetime' },
    { key: 'github_updated_at', name: 'Updated on GitHub', type: 'datetime' },
    { key: 'github_closed_at', name: 'Closed on GitHub', type: 'datetime' },
    { key: 'comments', name: 'Comments', type: 'number', options: { precision: 0 } },
    { key: 'is_pull_request', name: 'Pull request', type: 'checkbox' },
  ];
}

/** An issue as GitHub's `GET /repos/{owner}/{repo}/issues` lists it (the members read here). */
export interface GitHubIssue {
  id: number | string;
  number?: unknown;
  title?: unknown;
  state?: unknown;
  body?: unknown;
  user?: { login?: unknown } | null;
  assignees?: unknown;
  labels?: unknown;
  html_url?: unknown;
  created_at?: unknown;
  updated_at?: unknown;
  closed_at?: unknown;
  comments?: unknown;
  pull_request?: unknown;
}

/** An object with an id GitHub gives every issue (a positive integer): anything else in a listing is not an issue. */
export function isIssue(item: unknown): item is GitHubIssue {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return false;
  const id = (item as { id?: unknown }).id;
  return (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) || (typeof id === 'string' && /^[1-9][0-9]{0,30}$/.test(id));
}

export function isPullRequest(issue: GitHubIssue): boolean {
  return issue.pull_request !== undefined && issue.pull_request !== null && issue.pull_request !== false;
}

/** GitHub's timestamp (`2024-05-01T09:30:00Z`) as a datetime cell; null for anything that is not an instant. */
export function timeCell(value: unknown): string | null {
  return typeof value === 'string' ? instantCell(Date.parse(value)) : null;
}

/** A whole number the number field (±10^15, precision 0) takes; null otherwise. */
export function countCell(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && Math.abs(value) < 1e15 ? value : null;
}

/** The single_select's label: `open` or `closed`; null for anything else. */
export function stateCell(value: unknown): 'open' | 'closed' | null {
  return value === 'open' || value === 'closed' ? value : null;
}

/** Names joined with ", " (a text cell), or null when there are none. */
function joined(names: string[]): string | null {
  return textCell(names.join(', '), TEXT_MAX);
}

function loginsOf(users: unknown): string[] {
  if (!Array.isArray(users)) return [];
  return users.flatMap((u) => (u && typeof u === 'object' && typeof (u as { login?: unknown }).login === 'string' ? [(u as { login: string }).login] : []));
}

/** Labels come as objects (`{ name, color, … }`) and, in older answers, as bare names. */
function labelNames(labels: unknown): string[] {
  if (!Array.isArray(labels)) return [];
  return labels.flatMap((l) => {
    if (typeof l === 'string') return [l];
    if (l && typeof l === 'object' && typeof (l as { name?: unknown }).name === 'string') return [(l as { name: string }).name];
    return [];
  });
}

export function issueKey(issue: GitHubIssue): string {
  return String(issue.id);
}

export function issueRow(issue: GitHubIssue): SourceRow {
  const key = issueKey(issue);
  return {
    key,
    values: {
      id: key,
      number: countCell(issue.number),
      title: textCell(issue.title, TEXT_MAX),
      state: stateCell(issue.state),
      body: textCell(issue.body, LONG_TEXT_MAX),
      author: textCell(issue.user && typeof issue.user === 'object' ? issue.user.login : null, TEXT_MAX),
      assignees: joined(loginsOf(issue.assignees)),
      labels: joined(labelNames(issue.labels)),
      url: urlCell(issue.html_url),
      github_created_at: timeCell(issue.created_at),
      github_updated_at: timeCell(issue.updated_at),
      github_closed_at: timeCell(issue.closed_at),
      comments: countCell(issue.comments),
      is_pull_request: isPullRequest(issue),
    },
  };
}
