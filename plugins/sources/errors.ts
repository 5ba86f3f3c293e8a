import { defineErrors } from '../../core/errors.ts';

/** The codes only the sources plugin answers with; the kernel's own (`not_found`, `validation_failed`…) are in core/errors.ts. */
export const SourceErrors = defineErrors({
  sync_running: {
    status: 409,
    when: 'Starting a sync while one of the same source is queued or running; `run_id` names it',
    create: (runId: string) => ({ detail: 'A sync of this source is already queued or running.', extensions: { run_id: runId } }),
  },
  source_unavailable: {
    status: 422,
    when: "The provider could not be read while the source was created, changed or dry-run (its answer is in `detail`)",
    create: (detail: string) => detail,
  },
});
