import type { Logger } from 'pino';
import { notFound } from '../../core/errors.ts';
import type { Host } from '../../core/host.ts';
import type { Template, TemplateHooks } from './hooks.ts';
import type { KindCatalogue } from './kind-catalogue.ts';
import { checkPack } from './pack-check.ts';
import type { TemplateSummary } from './schemas.ts';

/** Starter packs shipped by plugins through `packs.templates`, read once every plugin has registered. */
export class TemplateService {
  private templates: Template[] | undefined;

  constructor(
    private readonly hooks: TemplateHooks,
    private readonly kinds: KindCatalogue,
    private readonly host: Host,
    private readonly logger: Logger,
    private readonly maxResources: number,
  ) {}

  /** A template that is not a valid pack on this instance (a plugin it needs is off) is left out, and the log says why. */
  private all(): Template[] {
    if (this.templates) return this.templates;
    const kept: Template[] = [];
    for (const template of this.hooks.templates.call([])) {
      const { problems } = checkPack(template.pack, this.kinds, this.host, this.maxResources);
      if (kept.some((t) => t.id === template.id)) this.logger.error({ template: template.id, plugin: template.plugin }, 'two templates have this id; the second is left out');
      else if (problems.length > 0) this.logger.warn({ template: template.id, plugin: template.plugin, problems }, 'template left out: not a valid pack on this instance');
      else kept.push(template);
    }
    return (this.templates = kept);
  }

  list(): TemplateSummary[] {
    return this.all().map(summary);
  }

  get(id: string): TemplateSummary & { pack: Template['pack'] } {
    const template = this.all().find((t) => t.id === id);
    if (!template) throw notFound('No such template.');
    return { ...summary(template), pack: template.pack };
  }
}

function summary(t: Template): TemplateSummary {
  return { id: t.id, name: t.name, description: t.description, categories: t.categories, pack_version: t.pack.version, plugin: t.plugin };
}
