/**
 * The onboarding checklist, in the order it is shown. `completedBy` names the domain events
 * that tick a step for the event's actor; a step with none is ticked by the client (PATCH).
 * Record events are left out on purpose: one delivery per record written would cost far more
 * than a checkbox is worth.
 */
export const STEPS = [
  { key: 'create_space', title: 'Create a space', completedBy: ['space.created'] },
  { key: 'create_database', title: 'Create a database', completedBy: ['database.created'] },
  { key: 'add_records', title: 'Add your first records', completedBy: [] },
  { key: 'invite_member', title: 'Invite a teammate', completedBy: ['invite.created'] },
  { key: 'create_token', title: 'Create an API token', completedBy: [] },
] as const satisfies ReadonlyArray<{ key: string; title: string; completedBy: readonly string[] }>;

export type StepKey = (typeof STEPS)[number]['key'];

/** Every event some step listens for. */
export const STEP_EVENTS: string[] = [...new Set(STEPS.flatMap((s) => [...s.completedBy]))];

export function stepsCompletedBy(eventName: string): StepKey[] {
  return STEPS.filter((s) => (s.completedBy as readonly string[]).includes(eventName)).map((s) => s.key);
}
