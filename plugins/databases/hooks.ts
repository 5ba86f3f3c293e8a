import { SyncHook } from '../../core/hooks.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';

/** `databases.fieldTypes`: plugins bringing field types (links, formulas, attachments) add them at boot. */
export function createFieldTypeHooks() {
  return {
    register: new SyncHook<[FieldTypeRegistry]>(['registry']),
  };
}

export type FieldTypeHooks = Readonly<ReturnType<typeof createFieldTypeHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'databases.fieldTypes': FieldTypeHooks;
  }
}
