import { Type, type Static } from '../../core/schema.ts';
import { ActionFailed, type Credentials, type ProviderAction } from '../integrations/public.ts';
import { GitHubUnreachable, messageOf, UnusableToken, withoutToken, type GitHubClient } from './github-client.ts';

/** An owner or repository name as GitHub allows them (letters, digits, `-`, `_`, `.`): nothing that could change the path. */
const Name = Type.String({ pattern: '^[A-Za-z0-9_.-]{1,100}$' });

const CreateIssue = Type.Object({
  owner: Name,
  repo: Name,
  title: Type.String({ minLength: 1, maxLength: 256 }),
  body: Type.Optional(Type.String({ maxLength: 65536 })),
  labels: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20 })),
});
const Comment = Type.Object({
  owner: Name,
  repo: Name,
  issue_number: Type.Integer({ minimum: 1 }),
  body: Type.String({ minLength: 1, maxLength: 65536 }),
});

/** One call with the connection's token; GitHub's refusal (its status and message) fails the step, the token never in it. */
async function call(client: GitHubClient, credentials: Credentials, path: string, body: unknown, what: string): Promise<Record<string, any>> {
  const token = credentials.token ?? '';
  let answer;
  try {
    answer = await client.request(token, 'POST', path, body);
  } catch (err) {
    if (err instanceof GitHubUnreachable || err instanceof UnusableToken) throw new ActionFailed(withoutToken(err.message, token));
    throw err;
  }
  if (answer.status !== 201) {
    const message = messageOf(answer.body);
    throw new ActionFailed(withoutToken(`GitHub refused to ${what} (HTTP ${answer.status}${message ? `: ${message}` : ''}).`, token));
  }
  return answer.body as Record<string, any>;
}

/** `github_create_issue` and `github_comment`, through the REST API's issues endpoints. */
export function githubActions(client: GitHubClient): ProviderAction[] {
  const create: ProviderAction<Static<typeof CreateIssue>> = {
    type: 'github_create_issue',
    summary: 'Open an issue in a repository',
    schema: CreateIssue,
    // A retry after a lost answer would open the issue twice.
    retrySafe: false,
    async run({ credentials, config }) {
      const { owner, repo, ...issue } = config;
      const made = await call(client, credentials, `/repos/${owner}/${repo}/issues`, issue, 'open the issue');
      return { number: made.number, url: made.html_url };
    },
  };
  const comment: ProviderAction<Static<typeof Comment>> = {
    type: 'github_comment',
    summary: 'Comment on an issue or a pull request',
    schema: Comment,
    retrySafe: false,
    async run({ credentials, config }) {
      const made = await call(client, credentials, `/repos/${config.owner}/${config.repo}/issues/${config.issue_number}/comments`, { body: config.body }, 'comment');
      return { id: made.id, url: made.html_url };
    },
  };
  return [create, comment];
}
