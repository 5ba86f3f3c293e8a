import { Type, type Static } from '../../core/schema.ts';
import { pageOf } from '../../core/pagination.ts';

export const PluginFailure = Type.Object({
  phase: Type.Union(['register', 'migrate', 'boot', 'dependency'].map((p) => Type.Literal(p)), {
    description: '`dependency`: disabled because a plugin it requires failed.',
  }),
  message: Type.String(),
});

export const PluginStatus = Type.Object({
  id: Type.String(),
  version: Type.String(),
  enabled: Type.Boolean({ description: 'Whether the configuration turns it on.' }),
  state: Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('failed')]),
  failure: Type.Union([PluginFailure, Type.Null()]),
});
export type PluginStatus = Static<typeof PluginStatus>;

export const PluginList = pageOf(PluginStatus);
