// The order inside src/core, seen from the import graph (scripts/structure.mjs): every import
// between core units checked against eslint-rules/core-order.js (the same table the layer rule
// checks per import), and the package graph printed (`node scripts/structure.mjs --packages`) —
// how the order is measured before and after a change.
import { relative, sep } from 'node:path';
import { CORE_LEVELS, coreImportProblem, coreUnit, isTestCode, levelOf } from '../eslint-rules/core-order.js';
import { cliImportProblem } from '../eslint-rules/cli-core.js';

const toCore = (coreDir, f) => {
  const r = relative(coreDir, f);
  return r.startsWith('..') ? null : r.split(sep).join('/');
};

/**
 * Every import between two core units of production code: `{ from, to, fromUnit, toUnit, typeOnly,
 * problem }` (paths relative to src/core; problem: what the order says is wrong, or null).
 */
export function coreEdges(graph, coreDir) {
  const edges = [];
  for (const [f, out] of graph) {
    const from = toCore(coreDir, f);
    if (from === null || isTestCode(from)) continue;
    for (const { to: t, typeOnly } of out) {
      const to = toCore(coreDir, t);
      if (to === null) continue;
      const fromUnit = coreUnit(from),
        toUnit = coreUnit(to);
      if (fromUnit === toUnit) continue;
      edges.push({ from, to, fromUnit, toUnit, typeOnly, problem: coreImportProblem(from, to) });
    }
  }
  return edges;
}

/** Units (packages with more than one file shown by name) with their level and file count, and unit → unit edge counts. */
export function packageGraph(edges, files, coreDir) {
  const units = new Map();
  for (const f of files) {
    const r = toCore(coreDir, f);
    if (r === null || isTestCode(r)) continue;
    const u = coreUnit(r);
    units.set(u, (units.get(u) ?? 0) + 1);
  }
  const pairs = new Map();
  for (const e of edges) {
    const k = `${e.fromUnit}\u0000${e.toUnit}`;
    const p = pairs.get(k) ?? { from: e.fromUnit, to: e.toUnit, imports: 0, back: 0, pastIndex: 0 };
    p.imports++;
    if (e.problem && !/index\.ts/.test(e.problem)) p.back++;
    else if (e.problem) p.pastIndex++;
    pairs.set(k, p);
  }
  return {
    units,
    pairs: [...pairs.values()].sort(
      (a, b) => (levelOf(b.from) ?? 99) - (levelOf(a.from) ?? 99) || a.from.localeCompare(b.from) || a.to.localeCompare(b.to),
    ),
  };
}

/** The report `--packages` prints: the levels (lowest last), then each unit's imports of others. */
export function printPackages(edges, files, coreDir, log = console.log) {
  const { units, pairs } = packageGraph(edges, files, coreDir);
  log('The order inside src/core (eslint-rules/core-order.js), top first; a unit imports only units below it:');
  for (let i = CORE_LEVELS.length - 1; i >= 0; i--) {
    const l = CORE_LEVELS[i];
    const here = l.units.map((u) => (units.has(u) ? (u.endsWith('.ts') ? u : `${u}/ (${units.get(u)})`) : null)).filter(Boolean);
    log(`  ${String(i).padStart(2)} ${l.name.padEnd(12)} ${here.join('  ')}`);
  }
  const homeless = [...units.keys()].filter((u) => levelOf(u) === undefined);
  if (homeless.length) log(`  no place yet: ${homeless.join(', ')}`);
  log('Imports between units (production code; files → files):');
  for (const p of pairs) {
    const notes = [p.back ? `${p.back} BACK EDGE${p.back > 1 ? 'S' : ''}` : '', p.pastIndex ? `${p.pastIndex} past its index.ts` : '']
      .filter(Boolean)
      .join(', ');
    log(`  ${p.from.padEnd(18)} → ${p.to.padEnd(18)} ${String(p.imports).padStart(3)}${notes ? `  (${notes})` : ''}`);
  }
  const back = edges.filter((e) => e.problem && !/index\.ts/.test(e.problem)).length;
  const past = edges.filter((e) => e.problem && /index\.ts/.test(e.problem)).length;
  log(`${edges.length} imports between core units: ${back} against the order, ${past} past a package's index.ts`);
}

/**
 * Every import from the command line into core checked against eslint-rules/cli-core.js:
 * `problems` (sentences).
 */
export function cliEdges(graph, cliDir, coreDir) {
  const problems = [];
  for (const [f, out] of graph) {
    const from = toCore(cliDir, f);
    if (from === null) continue;
    for (const { to: t } of out) {
      const to = toCore(coreDir, t);
      if (to === null) continue;
      const p = cliImportProblem(from, to);
      if (p) problems.push(p);
    }
  }
  return { problems };
}
