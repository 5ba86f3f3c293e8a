import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { createGithubPlugin } from '../../../plugins/integration-github/index.ts';

/** The plugin with and without the sources plugin: `sources` is an optional dependency, the kind is added only with it. */
describe('integration-github: with and without sources', () => {
  let t: TestKernel | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  async function attempt(kernel: TestKernel) {
    const admin = await signUp(kernel);
    const ws = (await createWorkspace(kernel, admin)).id;
    const github = (await kernel.request.get('/api/v1/integrations').set(admin.auth).expect(200)).body.data.find((p: { id: string }) => p.id === 'github');
    const made = await kernel.request.post(`/api/v1/workspaces/${ws}/sources`).set(admin.auth).send({ kind: 'github.issues', name: 'Issues', config: { repository: 'not a repository' } });
    return { github, made };
  }

  it('runs without the sources plugin: the provider is there, the kind is not', async () => {
    t = await startTestKernel({ plugins: [createGithubPlugin()] });
    const { github, made } = await attempt(t);
    assert.deepEqual(github.capabilities, ['webhooks', 'actions', 'sources']);
    assert.equal(made.status, 404, 'no sources routes at all');
  });

  it('adds github.issues to the sources plugin when it is on: its config schema is the one checked', async () => {
    t = await startTestKernel({ plugins: [createGithubPlugin()], also: ['sources'] });
    const { made } = await attempt(t);
    assert.equal(made.status, 422, JSON.stringify(made.body));
    assert.ok(JSON.stringify(made.body).includes('/config/repository'), JSON.stringify(made.body));
  });
});
