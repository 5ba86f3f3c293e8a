import { defineErrors } from '../../core/errors.ts';

/** The codes only the relations plugin answers with; a link clash is the records plugin's `link_conflict`. */
export const RelationErrors = defineErrors({
  rule_exists: {
    status: 409,
    when: 'The relation has the same auto-link rule already; `rule_id` names it',
    create: (ruleId: string) => ({ detail: 'This relation has that rule already.', extensions: { rule_id: ruleId } }),
  },
});
