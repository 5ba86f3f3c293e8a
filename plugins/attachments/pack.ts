import type { PluginContext } from '../../core/plugin.ts';

export function tapPacks(_ctx: PluginContext<unknown>): void {}
