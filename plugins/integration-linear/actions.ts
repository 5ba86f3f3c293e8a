import { Type, type Static } from '../../core/schema.ts';
import { ActionFailed, type ProviderAction } from '../integrations/public.ts';
import { LinearFailure, withoutKey, type LinearApi } from './linear-client.ts';

const CreateIssue = Type.Object({
  team_id: Type.String({ format: 'uuid', description: "The team's id, as Linear shows it in the team's settings." }),
  title: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.String({ maxLength: 65536, description: 'Markdown.' })),
});

/** `linear_create_issue`: the `issueCreate` mutation with the connection's API key. */
export function linearActions(api: LinearApi): ProviderAction[] {
  const create: ProviderAction<Static<typeof CreateIssue>> = {
    type: 'linear_create_issue',
    summary: 'Open an issue in a team',
    schema: CreateIssue,
    // A retry after a lost answer would open the issue twice.
    retrySafe: false,
    async run({ credentials, config }) {
      const key = credentials.api_key ?? '';
      try {
        const issue = await api.createIssue(key, { teamId: config.team_id, title: config.title, ...(config.description ? { description: config.description } : {}) });
        return { id: issue.id, identifier: issue.identifier, url: issue.url };
      } catch (err) {
        if (err instanceof LinearFailure) throw new ActionFailed(withoutKey(err.message, key));
        throw err;
      }
    },
  };
  return [create];
}
