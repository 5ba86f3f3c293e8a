import type { Plugin } from '../core/plugin.ts';
import system from './system/index.ts';
import auth from './auth/index.ts';

/** Built-in plugins, on unless the config disables them. */
export const builtinPlugins: Plugin[] = [system, auth];
