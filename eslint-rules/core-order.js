// The order inside src/core (docs/architecture.md "The order inside core"), one table read by the
// layer rule (eslint-rules/layers.js, per import) and by scripts/structure.mjs (the package graph).
// A unit is a folder of src/core (a package) or a file directly in src/core. A unit may import only
// units of a LOWER level, and a package only through its index.ts; units on one level are
// siblings and import nothing of each other.

/** lowest first */
export const CORE_LEVELS = [
  // files that import nothing else of core: the ports (interfaces between parts), error types, paths
  {
    name: 'ground',
    units: [
      'ports.ts',
      'storage-error.ts',
      'worker-entry.ts',
      'bridge.ts',
      'paths.ts',
      'author.ts',
      'renderer-assets.ts',
      'partial-files.ts',
    ],
  },
  // the tokenizer, term rules and pseudonyms: what the archive's SQL and the analyses both read text with
  { name: 'text', units: ['text'] },
  // every SQL statement; opens its own connections; imports nothing above
  { name: 'archive', units: ['archive'] },
  // the request core; analysis (pure over rows); reading lists and addresses
  { name: 'services', units: ['api', 'analysis', 'resolve'] },
  // what builds on a service: watchlists and secrets on the request core, exports on the analyses
  // (service-clock.ts: the service's clock read from the request core's answers)
  { name: 'uses', units: ['watch', 'secrets', 'export', 'service-clock.ts'] },
  { name: 'plans', units: ['collect'] },
  // re-checking a saved set: a collection plan of single-item reads
  { name: 'sets', units: ['datasets'] },
  // the composition's parts, the contract's implementation, the composition
  { name: 'links', units: ['service-link.ts', 'ledger-watch.ts', 'query-names.ts'] },
  { name: 'methods', units: ['methods'] },
  // the composition: the app from its parts, then what every door does to start one
  { name: 'app', units: ['app.ts'] },
  { name: 'compose', units: ['compose.ts'] },
];

/**
 * Imports allowed past a package's index.ts, each with its reason (importing file → imported file,
 * relative to src/core). Keep this short: every entry is a place the package's index does not speak for it.
 */
export const PAST_INDEX = {
  'export/rid-rows.ts': {
    'archive/export-row.ts':
      "the export workers' row reader loads only what they run: the archive's index would load every archive module in each export worker",
    'archive/sql.ts': "the same reader's statements in the archive's SQL style (tagged templates), without the archive's index",
  },
  'export/rid-batch.ts': {
    'archive/sql.ts': "the CSV workers' batch reader, in the same statement style as rid-rows.ts (without the archive's index)",
  },
  'export/bundle-render.ts': {
    'archive/bundle-row-facts.ts': "the type of a bundle's rows' calls and readings (RowFacts), without the archive's index",
    'archive/sql.ts': "the bundle workers' reader's connection (Statements), as rid-rows.ts",
  },
  'export/bundle-batch.ts': {
    'archive/bundle-row-facts.ts':
      "a bundle's rows with their calls and readings, read in the export workers as rid-batch.ts reads rows: without the archive's index",
    'archive/sql.ts': "the same reader's statement (as rid-batch.ts)",
  },
};

const LEVEL_OF = new Map(CORE_LEVELS.flatMap((l, i) => l.units.map((u) => [u, i])));

/** The unit of a path relative to src/core ('archive/db.ts' → 'archive', 'ports.ts' → 'ports.ts'). */
export function coreUnit(relToCore) {
  const parts = relToCore.split(/[\\/]/);
  return parts.length > 1 ? parts[0] : parts[0];
}

export const isPackage = (relToCore) => relToCore.split(/[\\/]/).length > 1;

/** The level of a unit (its index in CORE_LEVELS), or undefined for a unit with no place yet. */
export const levelOf = (unit) => LEVEL_OF.get(unit);

/** Tests and their harnesses (`*.test.ts`, `test-*.ts`, `testing.ts`) sit outside the order: a test may build the whole app. */
export const isTestCode = (rel) => /(^|[\\/])(test-[\w-]+\.ts|testing\.ts|[\w.-]+\.test\.tsx?)$/.test(rel);

/**
 * What is wrong with an import from one core file to another (paths relative to src/core), or null.
 */
export function coreImportProblem(fromRel, toRel) {
  const from = coreUnit(fromRel),
    to = coreUnit(toRel);
  if (from === to || isTestCode(fromRel)) return null;
  const lf = levelOf(from),
    lt = levelOf(to);
  const where = 'add it to CORE_LEVELS in eslint-rules/core-order.js';
  if (lf === undefined) return `src/core/${from} has no place in the order inside core (${where})`;
  if (lt === undefined) return `src/core/${to} has no place in the order inside core (${where})`;
  if (lt >= lf) {
    const rel =
      lt === lf
        ? `a sibling on the same level (${CORE_LEVELS[lf].name})`
        : `above it (${CORE_LEVELS[lt].name} over ${CORE_LEVELS[lf].name})`;
    return `core/${from} must not import core/${to}: ${rel}; the order inside core runs ${CORE_LEVELS.map((l) => l.units.filter((u) => !u.endsWith('.ts')).join('/') || l.name).join(' < ')}`;
  }
  if (isPackage(toRel) && !/[\\/]index\.ts$/.test(toRel) && !PAST_INDEX[fromRel]?.[toRel])
    return `core/${from} must import core/${to} through its index.ts, not '${toRel.replace(/\.ts$/, '')}'`;
  return null;
}
