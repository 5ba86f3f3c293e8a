import type { Plugin } from '../core/plugin.ts';
import system from './system/index.ts';
import gdpr from './gdpr/index.ts';
import auth from './auth/index.ts';
import tokens from './tokens/index.ts';
import users from './users/index.ts';
import admin from './admin/index.ts';
import referrals from './referrals/index.ts';
import mail from './mail/index.ts';
import workspaces from './workspaces/index.ts';
import spaces from './spaces/index.ts';
import access from './access/index.ts';
import databases from './databases/index.ts';
import records from './records/index.ts';
import favorites from './favorites/index.ts';
import documents from './documents/index.ts';
import comments from './comments/index.ts';
import mentions from './mentions/index.ts';
import views from './views/index.ts';
import relations from './relations/index.ts';
import packs from './packs/index.ts';
import starterPacks from './starter-packs/index.ts';
import indexes from './indexes/index.ts';
import notifications from './notifications/index.ts';
import activity from './activity/index.ts';
import recordVersions from './record-versions/index.ts';

/** Built-in plugins, on unless the config disables them. */
export const builtinPlugins: Plugin[] = [system, gdpr, auth, tokens, users, mail, workspaces, packs, spaces, access, databases, records, favorites, documents, comments, mentions, notifications, views, relations, activity, recordVersions, indexes, starterPacks, admin, referrals];
