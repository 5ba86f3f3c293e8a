/**
 * What other plugins may use from the automations plugin: the action contract (tap `automations.actions` to add one),
 * the errors an action throws to fail or pause its step, and the services' types (`automations.runs` starts, resumes
 * and ends runs; `automations.service` reads automations).
 */
export type { ActionContext, ActionDefinition, ActionHooks, ConfigCheck, TriggerData } from './actions.ts';
export { StepFailed } from './actions.ts';
export { PauseRun } from './runs.service.ts';
export type { NewRun, RunService } from './runs.service.ts';
export type { AutomationRow, AutomationService } from './automations.service.ts';
export type { TriggerListener } from './triggers.ts';
