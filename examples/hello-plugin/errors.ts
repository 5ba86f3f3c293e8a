import { defineErrors } from 'tessera/errors';

/**
 * Every code this plugin answers with beyond the kernel's own (`not_found`, `forbidden`, `validation_failed`…):
 * one entry per cause, named on the routes that can answer it so the OpenAPI document lists it.
 */
export const HelloErrors = defineErrors({
  already_greeted: {
    status: 409,
    when: 'The caller already greeted this name in this workspace',
    create: (name: string) => `You have already greeted ${JSON.stringify(name)} in this workspace; a member greets each name once.`,
  },
});
