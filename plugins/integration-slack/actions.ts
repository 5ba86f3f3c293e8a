import { Type, type Static } from '../../core/schema.ts';
import { ActionFailed, type ProviderAction } from '../integrations/public.ts';
import { SlackFailure, withoutToken, type SlackClient } from './slack-client.ts';

const PostMessage = Type.Object({
  channel: Type.String({ minLength: 1, maxLength: 80, description: "A channel's id (`C0123…`) or name (`#general`); the bot must be in it." }),
  text: Type.String({ minLength: 1, maxLength: 40000 }),
});

/** `slack_post_message`: `chat.postMessage` with the connection's bot token. */
export function slackActions(client: SlackClient): ProviderAction[] {
  const post: ProviderAction<Static<typeof PostMessage>> = {
    type: 'slack_post_message',
    summary: 'Post a message in a channel',
    schema: PostMessage,
    // A timed-out post may have gone through: posting again could show the message twice.
    retrySafe: false,
    async run({ credentials, config }) {
      const token = credentials.bot_token ?? '';
      try {
        const posted = await client.postMessage(token, config.channel, config.text);
        return { channel: posted.channel, ts: posted.ts };
      } catch (err) {
        if (err instanceof SlackFailure) throw new ActionFailed(withoutToken(err.message, token));
        throw err;
      }
    },
  };
  return [post];
}
