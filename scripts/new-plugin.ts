import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { PLUGIN_ID } from '../core/loader.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEMPLATE = path.join(ROOT, 'examples', 'hello-plugin');

interface Names {
  id: string;
  snake: string;
  camel: string;
  pascal: string;
}

function namesOf(id: string): Names {
  const words = id.split('-');
  const pascal = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  return { id, snake: words.join('_'), camel: pascal[0].toLowerCase() + pascal.slice(1), pascal };
}

/** Where the scaffold puts the template's files: its `test/` folder goes where the tests of such a plugin live. */
interface Layout {
  plugin: string;
  tests: string;
}

function destinationOf(templatePath: string, layout: Layout): string {
  const rel = path.relative(TEMPLATE, templatePath);
  if (rel === 'test' || rel.startsWith(`test${path.sep}`)) return path.join(layout.tests, path.relative(path.join(TEMPLATE, 'test'), templatePath));
  return path.join(layout.plugin, rel);
}

/** Relative imports are re-aimed from the new location: at the kernel where it is, at the template's files where they were copied. */
function reaimImports(text: string, from: string, to: string, layout: Layout): string {
  return text.replace(/(['"])(\.\.?\/[^'"]*)\1/g, (_match, quote: string, spec: string) => {
    const target = path.resolve(path.dirname(from), spec);
    const inTemplate = !path.relative(TEMPLATE, target).startsWith('..');
    let rel = path.relative(path.dirname(to), inTemplate ? destinationOf(target, layout) : target).split(path.sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${quote}${rel}${quote}`;
  });
}

/** Turns the example's `hello` into the new id, in every spelling the example uses. */
function rename(text: string, n: Names): string {
  return text
    .replace(/@tessera-examples\/hello-plugin/g, `tessera-plugin-${n.id}`)
    .replace(/\bhello_/g, `${n.snake}_`)
    .replace(/\bX-Hello\b/g, `X-${n.id.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join('-')}`)
    .replace(/Hello(?=[A-Z])/g, n.pascal)
    .replace(/\bhello(?=[A-Z])/g, n.camel)
    .replace(/\bhello\b(?!-plugin)/g, n.id);
}

function migrationStamp(): string {
  return new Date().toISOString().replace(/\D/g, '').slice(0, 14);
}

function readme(n: Names): string {
  return `# ${n.id}

Scaffolded from \`examples/hello-plugin\` by \`npm run new-plugin\`; its guide explains every part.
Replace the greetings with what this plugin is for, and keep this file telling its story.

| method | path | access | notes |
| --- | --- | --- | --- |
| GET | /api/v1/workspaces/{ws}/${n.id}/greetings | member | the workspace's greetings, newest first (\`limit\`, \`cursor\`) |
| POST | /api/v1/workspaces/{ws}/${n.id}/greetings | member | \`{ name }\` → 201 the stored greeting; 409 \`already_greeted\` for a name the caller greeted here |
| GET | /api/v1/workspaces/{ws}/${n.id}/greetings/{id} | member | one greeting |
| DELETE | /api/v1/workspaces/{ws}/${n.id}/greetings/{id} | its author, or an admin | 204 |

- Options: \`greeting\` (string, default \`"Hello"\`).
- Hooks tapped: \`auth.locate\` for \`${n.id}.greeting\`, \`workspaces.lifecycle.memberRemoved\` (a member's greetings leave with them), \`http.middleware\` (a response header).
- Hooks defined: \`${n.id}.greetings\` — \`message\` (waterfall over a new greeting's message).
- Services exported: \`${n.id}.greetings\` (its type in \`public.ts\`).
- Errors: \`already_greeted\` (409), in \`errors.ts\`.
- Events emitted: \`${n.id}.greeting_created\`, \`${n.id}.greeting_deleted\`.
- Tables: \`${n.snake}_greetings\`.
`;
}

/** Copies the example under the new id; returns the files written. */
function scaffold(n: Names, layout: Layout, external: boolean): string[] {
  const written: string[] = [];
  const stamp = migrationStamp();
  const copy = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const from = path.join(dir, entry.name);
      if (entry.name === 'node_modules' || entry.name === 'README.md') continue;
      if (entry.name === 'package.json' && !external) continue;
      if (entry.isDirectory()) {
        copy(from);
        continue;
      }
      let name = entry.name.endsWith('.test.ts') ? `${n.id}.test.ts` : entry.name.replace(/hello/g, n.snake);
      if (path.basename(dir) === 'migrations') name = name.replace(/^\d{14}/, stamp);
      const to = path.join(path.dirname(destinationOf(from, layout)), name);
      let text = rename(reaimImports(fs.readFileSync(from, 'utf8'), from, to, layout), n);
      if (entry.name === 'package.json') text = text.replace(/"version": "[^"]*"/, '"version": "0.1.0"').replace(/"description": "[^"]*"/, `"description": "Tessera plugin ${n.id}"`);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.writeFileSync(to, text);
      written.push(to);
    }
  };
  copy(TEMPLATE);
  const doc = path.join(layout.plugin, 'README.md');
  fs.writeFileSync(doc, readme(n));
  return [...written, doc];
}

function nextSteps(n: Names, layout: Layout, external: boolean, shown: (f: string) => string): string {
  const test = shown(path.join(layout.tests, `${n.id}.test.ts`));
  if (external) {
    return [
      'Next:',
      `  1. Enable it in tessera.config.json: { "plugins": { "${n.id}": { "resolve": "${layout.plugin}" } } }`,
      `  2. Run its test from the Tessera checkout: npx mocha ${test}`,
      `  3. Replace the greetings with what the plugin is for; keep ${shown(path.join(layout.plugin, 'README.md'))} telling its story.`,
      '',
    ].join('\n');
  }
  return [
    'Next:',
    `  1. Make it a built-in: in plugins/index.ts, import ${n.camel} from './${n.id}/index.ts' and add it to builtinPlugins.`,
    `  2. npm test runs ${test}, and the authorization matrix takes this plugin's rows from`,
    `     ${shown(path.join(layout.tests, 'matrix.rows.ts'))}: one row per route, updated with every route you add.`,
    `  3. Replace the greetings with what the plugin is for; keep plugins/${n.id}/README.md telling its story.`,
    '',
  ].join('\n');
}

const program = new Command()
  .name('new-plugin')
  .description('Scaffold a Tessera plugin from examples/hello-plugin')
  .argument('<id>', 'plugin id, kebab-case (also its route prefix, service namespace and table prefix)')
  .option('--dir <path>', 'create an external plugin package there instead of plugins/<id>')
  .action((id: string, opts: { dir?: string }) => {
    if (!PLUGIN_ID.test(id)) program.error(`error: plugin id "${id}" must be kebab-case (e.g. "acme-crm").`);
    if (fs.existsSync(path.join(ROOT, 'plugins', id))) program.error(`error: plugin id "${id}" is taken: plugins/${id} already exists.`);
    // npm runs scripts from the package root; INIT_CWD is where the user typed the command.
    const target = opts.dir ? path.resolve(process.env.INIT_CWD ?? process.cwd(), opts.dir) : path.join(ROOT, 'plugins', id);
    if (fs.existsSync(target) && fs.readdirSync(target).length > 0) program.error(`error: ${target} already exists and is not empty.`);
    const layout: Layout = { plugin: target, tests: opts.dir ? path.join(target, 'test') : path.join(ROOT, 'test', 'plugins', id) };
    if (!opts.dir && fs.existsSync(layout.tests)) program.error(`error: ${layout.tests} already exists.`);
    const names = namesOf(id);
    const files = scaffold(names, layout, !!opts.dir);
    const shown = (f: string) => (path.relative(process.cwd(), f).startsWith('..') ? f : path.relative(process.cwd(), f));
    process.stdout.write(`Created plugin "${id}":\n${files.map((f) => `  ${shown(f)}\n`).join('')}\n`);
    process.stdout.write(nextSteps(names, layout, !!opts.dir, shown));
  });

program.parse();
