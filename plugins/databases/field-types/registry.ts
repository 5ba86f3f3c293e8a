import { StartupError } from '../../../core/errors.ts';
import type { FieldType } from './field-type.ts';

/** Every field type known to this instance: the built-ins, then those other plugins add. */
export class FieldTypeRegistry {
  private readonly types = new Map<string, FieldType>();

  add(type: FieldType): void {
    if (this.types.has(type.type)) throw new StartupError(`Field type "${type.type}" is registered twice.`, 'duplicate_field_type', []);
    this.types.set(type.type, type);
  }

  get(type: string): FieldType | undefined {
    return this.types.get(type);
  }

  names(): string[] {
    return [...this.types.keys()];
  }
}
