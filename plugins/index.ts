import type { Plugin } from '../core/plugin.ts';
import system from './system/index.ts';
import auth from './auth/index.ts';
import tokens from './tokens/index.ts';
import users from './users/index.ts';
import admin from './admin/index.ts';
import workspaces from './workspaces/index.ts';

/** Built-in plugins, on unless the config disables them. */
export const builtinPlugins: Plugin[] = [system, auth, tokens, users, workspaces, admin];
