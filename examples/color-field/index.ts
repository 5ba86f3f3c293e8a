import { definePlugin } from 'tessera/plugin';
import { colorType } from './color-type.ts';

/**
 * Adds the `color` field type. A field type is a value (`defineFieldType`); the databases plugin's
 * `databases.fieldTypes` hook set is where it joins the built-ins, before the first request.
 */
export default definePlugin({
  id: 'color-field',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { databases: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('databases.fieldTypes').register.tap('color-field', (registry) => registry.add(colorType));
  },
});
