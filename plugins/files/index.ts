import { definePlugin } from '../../core/plugin.ts';

export default definePlugin({
  id: 'files',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { workspaces: '^1.0.0' },
  register() {},
});
