import { defineErrors } from '../../core/errors.ts';

/** The codes only the buttons plugin answers with. */
export const ButtonErrors = defineErrors({
  automation_disabled: {
    status: 409,
    when: "Pressing a button whose automation is disabled",
    create: () => "This button's automation is disabled: enable it to press the button.",
  },
  automation_missing: {
    status: 409,
    when: 'Pressing a button whose automation was deleted or no longer has a button trigger',
    create: () => "This button's automation is gone or no longer has a button trigger: choose another in the field's options.",
  },
});
