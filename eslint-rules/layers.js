// Local ESLint rule enforcing the layer rules of docs/architecture.md.
// It resolves every import to a path inside src/ and checks the importing
// file's layer against the table below. Bare package names are checked too
// (electron, node: builtins, better-sqlite3...).
import path from 'node:path';
import { builtinModules } from 'node:module';
import { existsSync } from 'node:fs';
import { coreImportProblem } from './core-order.js';
import { cliImportProblem } from './cli-core.js';

/** What a *.test.ts beside a shared module may import besides zod (dev dependencies, never shipped). */
const TEST_TOOLS = new Set(['vitest', 'fast-check']);

const LAYERS = ['shared', 'core', 'main', 'preload', 'renderer', 'host', 'sandbox', 'cli'];
const BUILTINS = new Set(builtinModules);

/** which src layers each layer may import (besides itself) */
const ALLOWED_LAYERS = {
  shared: [],
  core: ['shared'],
  main: ['core', 'shared', 'sandbox'],
  preload: ['shared'],
  renderer: ['shared'],
  host: ['core', 'shared', 'sandbox'],
  cli: ['core', 'shared', 'sandbox'],
  sandbox: ['shared'],
};

function isNodeBuiltin(spec) {
  return spec.startsWith('node:') || BUILTINS.has(spec.split('/')[0]);
}

function layerOf(file, srcRoot) {
  const rel = path.relative(srcRoot, file);
  if (rel.startsWith('..')) return null;
  const top = rel.split(path.sep)[0];
  return LAYERS.includes(top) ? top : null;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the Loupe layer rules (src/<layer>/...)' },
    schema: [],
  },
  create(context) {
    const file = context.filename ?? context.getFilename();
    const srcRoot = path.join(context.cwd ?? process.cwd(), 'src');
    const from = layerOf(file, srcRoot);
    if (!from) return {};
    function check(node, spec) {
      if (typeof spec !== 'string') return;
      let problem = null;
      if (spec === 'electron' || spec.startsWith('electron/')) {
        if (from !== 'main' && from !== 'preload') problem = `'${from}' must not import electron (only main and preload may)`;
      } else if (isNodeBuiltin(spec)) {
        if (from === 'shared' || from === 'renderer' || from === 'preload')
          problem = `'${from}' must not import Node built-ins ('${spec}')`;
      } else if (spec.startsWith('.')) {
        const target = path.resolve(path.dirname(file), spec);
        const to = layerOf(target, srcRoot);
        // Tests of any layer (and their harness modules, test-*.ts) may start the sandbox: it is
        // the server every test talks to.
        const testMayUseSandbox = to === 'sandbox' && (/\.test\.tsx?$/.test(file) || /[\\/]test-[\w-]+\.ts$/.test(file));
        if (to && to !== from && !ALLOWED_LAYERS[from].includes(to) && !testMayUseSandbox)
          problem = `'${from}' must not import from '${to}' (allowed: ${ALLOWED_LAYERS[from].join(', ') || 'nothing outside itself'})`;
        else if (from === 'core' && to === 'core') {
          // the order inside core (eslint-rules/core-order.js): a unit imports only lower units, a package through its index.ts
          const file_ = [`${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts'), target].find((c) => existsSync(c));
          const core = path.join(srcRoot, 'core');
          const inner = coreImportProblem(
            path.relative(core, file).split(path.sep).join('/'),
            path
              .relative(core, file_ ?? target)
              .split(path.sep)
              .join('/'),
          );
          if (inner) problem = `the order inside core: ${inner}`;
        } else if (from === 'cli' && to === 'core') {
          // one contract for every door (eslint-rules/cli-core.js): the CLI reaches core through the composition only
          const file_ = [`${target}.ts`, path.join(target, 'index.ts'), target].find((c) => existsSync(c));
          const reach = cliImportProblem(
            path.relative(path.join(srcRoot, 'cli'), file).split(path.sep).join('/'),
            path
              .relative(path.join(srcRoot, 'core'), file_ ?? target)
              .split(path.sep)
              .join('/'),
          );
          if (reach) problem = `one contract for every door: ${reach}`;
        }
      } else if (from === 'shared' && !spec.startsWith('zod') && !(TEST_TOOLS.has(spec) && /\.test\.tsx?$/.test(file))) {
        // (a test beside a shared module may import its test tools: the runner, the property generator)
        problem = `'shared' may import only zod, not '${spec}'`;
      } else if (
        (from === 'renderer' || from === 'preload') &&
        (spec === 'better-sqlite3' || spec === 'undici' || spec.startsWith('@napi-rs/'))
      ) {
        problem = `'${from}' must not import the Node-only package '${spec}'`;
      }
      if (problem) context.report({ node, message: `Layer rule: ${problem}.` });
    }
    return {
      ImportDeclaration(node) {
        check(node.source, node.source.value);
      },
      ExportNamedDeclaration(node) {
        if (node.source) check(node.source, node.source.value);
      },
      ExportAllDeclaration(node) {
        check(node.source, node.source.value);
      },
      ImportExpression(node) {
        if (node.source.type === 'Literal') check(node.source, node.source.value);
      },
    };
  },
};
