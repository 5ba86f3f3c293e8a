/** What plugins holding personal data use to tap `gdpr.personalData`: the hook set and its shapes. */
export type { EraseContext, EraseReport, ExportContext, ExportSection, PersonIdentity, PersonalDataHooks, Retained } from './hooks.ts';
