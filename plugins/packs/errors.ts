import { defineErrors } from '../../core/errors.ts';

/** The codes the packs plugin answers with beyond the kernel's (a pack's own problems are `validation_failed`). */
export const PackErrors = defineErrors({
  name_taken: {
    status: 409,
    when: 'Another workspace publishes packs under this name',
    create: (name: string) => `The pack name ${JSON.stringify(name)} is published by another workspace; choose another name.`,
  },
  version_not_higher: {
    status: 409,
    when: 'This name is published already with this version or a higher one',
    create: (name: string, latest: string) => ({
      detail: `${JSON.stringify(name)} is published already at version ${latest}; publish a higher version.`,
      extensions: { latest_version: latest },
    }),
  },
});
