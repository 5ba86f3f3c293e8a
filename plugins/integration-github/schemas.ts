import { Type, type Static } from '../../core/schema.ts';

export const DEFAULT_API_URL = 'https://api.github.com';

export const GithubOptions = Type.Object(
  {
    apiUrl: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        default: DEFAULT_API_URL,
        description:
          'Root of the GitHub REST API the connections talk to: `https://api.github.com`, `https://HOST/api/v3` for GitHub Enterprise Server, a loopback server in tests.',
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);
export type GithubOptions = Static<typeof GithubOptions>;

/** The source kind this plugin adds when the sources plugin is on: the issues (and, if asked, pull requests) of one repository. */
export const GITHUB_ISSUES_KIND = 'github.issues';

/**
 * `owner/name` as GitHub allows them (letters, digits, `_`, `.`, `-`), neither part `.` or `..`: nothing that could
 * change the path the token is sent to.
 */
export const REPOSITORY_PATTERN = '^(?!\\.\\.?/)[A-Za-z0-9_.-]{1,100}/(?!\\.\\.?$)[A-Za-z0-9_.-]{1,100}$';

export const ISSUE_STATES = ['open', 'closed', 'all'] as const;

/** A `github.issues` source's config. */
export const IssuesConfig = Type.Object(
  {
    repository: Type.String({
      pattern: REPOSITORY_PATTERN,
      description: 'The repository whose issues are synced, as `owner/name` (`octocat/Hello-World`).',
    }),
    state: Type.Optional(
      Type.Union(
        ISSUE_STATES.map((s) => Type.Literal(s)),
        { default: 'all', description: 'Which issues are synced: `open`, `closed` or `all` (the default).' },
      ),
    ),
    include_pull_requests: Type.Optional(
      Type.Boolean({ default: false, description: "Sync pull requests too (GitHub lists them with the issues); they are left out by default." }),
    ),
  },
  { additionalProperties: false },
);
export type IssuesConfig = Static<typeof IssuesConfig>;
