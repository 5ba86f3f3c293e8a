import semver from 'semver';
import { compile, escapePointer, toErrorDetails } from '../../core/schema.ts';
import type { Host } from '../../core/host.ts';
import { findHostileInput } from '../../core/input-guard.ts';
import type { KindCatalogue } from './kind-catalogue.ts';
import { Pack, PACK_FORMAT_VERSION, type Problem } from './schemas.ts';

/** Property names that hold credentials: a pack is shareable data and never carries one. */
const SECRET_NAME = /^(secret|.*_secret|password|token|.*_token|api_key|private_key|credentials?)$/i;

/**
 * What can be said of a pack before anything is written: its envelope, the version of the format, the plugins it
 * requires, the kinds it names, each resource against its owner's schema, refs unique per kind, no secrets.
 */
export function checkPack(input: unknown, kinds: KindCatalogue, host: Host, maxResources: number): { pack: Pack | null; problems: Problem[] } {
  const hostile = findHostileInput(input);
  if (hostile) return { pack: null, problems: [hostile] };
  const validate = compile(Pack);
  if (!validate(input)) return { pack: null, problems: toErrorDetails(validate.errors) };
  const pack = input as Pack;
  const problems: Problem[] = [];
  if (pack.format_version !== PACK_FORMAT_VERSION) {
    problems.push({ pointer: '/format_version', detail: `Unknown format_version ${pack.format_version}: this instance reads version ${PACK_FORMAT_VERSION}.` });
    return { pack, problems };
  }

  const plugins = new Map(host.pluginStatuses().map((p) => [p.id, p]));
  for (const [id, range] of Object.entries(pack.requires)) {
    const pointer = `/requires/${escapePointer(id)}`;
    const plugin = plugins.get(id);
    if (!semver.validRange(range)) problems.push({ pointer, detail: `"${range}" is not a semver range.` });
    else if (!plugin) problems.push({ pointer, detail: `The pack needs the plugin "${id}", which this instance does not have.` });
    else if (plugin.state !== 'active') problems.push({ pointer, detail: `The pack needs the plugin "${id}", which is ${plugin.state} here.` });
    else if (!semver.satisfies(plugin.version, range, { includePrerelease: true })) {
      problems.push({ pointer, detail: `The pack needs "${id}" ${range}; this instance runs ${plugin.version}.` });
    }
  }

  let count = 0;
  for (const [kind, resources] of Object.entries(pack.resources)) {
    const pointer = `/resources/${escapePointer(kind)}`;
    const owner = kinds.get(kind);
    if (!owner) {
      problems.push({ pointer, detail: `Unknown kind "${kind}": no enabled plugin installs it. Known: ${kinds.all().map((k) => k.kind).join(', ')}.` });
      continue;
    }
    const checkResource = compile(owner.schema);
    const seen = new Set<string>();
    resources.forEach((resource, i) => {
      const at = `${pointer}/${i}`;
      count += 1;
      if (seen.has(resource.ref)) problems.push({ pointer: `${at}/ref`, detail: `The ref "${resource.ref}" is used twice in ${kind}.` });
      seen.add(resource.ref);
      if (!checkResource(resource)) problems.push(...toErrorDetails(checkResource.errors, at));
      problems.push(...secretsIn(resource, at));
    });
  }
  if (count > maxResources) problems.push({ pointer: '/resources', detail: `A pack holds at most ${maxResources} resources; this one has ${count}.` });
  return { pack, problems };
}

/**
 * Problems as a client reads them: every pointer under `/pack`, the member that holds the pack in the body of an
 * install or a publication, and in the answers of `GET /templates/{id}` and `GET /marketplace/packs/{id}` (where the
 * pack of a template applied or a published pack installed comes from).
 */
export function underPack(problems: Problem[]): Problem[] {
  return problems.map((p) => ({ pointer: `/pack${p.pointer}`, detail: p.detail }));
}

function secretsIn(value: unknown, pointer: string): Problem[] {
  if (!value || typeof value !== 'object') return [];
  const out: Problem[] = [];
  for (const [key, child] of Object.entries(value)) {
    const at = `${pointer}/${escapePointer(key)}`;
    if (SECRET_NAME.test(key) && child !== null && child !== '') out.push({ pointer: at, detail: 'A pack never carries secrets (secrets, tokens, passwords, keys).' });
    // Cells are data named by their fields' api_names: a column called "token" is not a credential of the instance.
    else if (key !== 'values') out.push(...secretsIn(child, at));
  }
  return out;
}
