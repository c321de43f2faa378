// Habits as checks (issue 25), a ratchet beside the file and function ones (scripts/structure.mjs):
// in production code under src/ (tests and their harnesses are left out) every
//   - `as unknown as` cast (a claim the type system cannot check),
//   - non-null assertion `x!` (the same, for null),
//   - SQL statement prepared from a string (`db.prepare('… ?')`: positional parameters kept in step
//     by hand) rather than written with the archive's one SQL style, the tagged template
//     (`sql\`… ${value}\``, src/core/archive/sql.ts) and its insert object,
//   - archive statement taken by text with positional parameters (`ctx.st('… ?')`, `c.st(\`…\`)`
//     then bound by position), the same style through the archive's statement cache: counted when
//     a literal piece of the text (a string, a template's fixed parts, a fragment spliced into it)
//     holds a `?`, or when the statement is bound to arguments in the same expression
//     (`.st(…).all(…params)`, through `.raw()` / `.pluck()`). Dynamic SQL built only from fixed
//     fragments without `?` and run without arguments (`c.st(\`SELECT count(*) FROM ${table}\`).get()`)
//     is allowed; a statement kept in a variable is judged by its text alone,
// is counted per file. scripts/habits-allowlist.json holds each file's counts as ceilings: a count
// may shrink but never grow, and a file not listed may have none. `--update-allowlist` lowers the
// ceilings to the current counts (never raises one).
import ts from 'typescript';

export const HABITS = {
  'as-unknown-as': 'an `as unknown as` cast: say what the value is (a type guard, a parser, a typed helper)',
  'non-null': 'a non-null assertion `!`: check for null (or narrow) instead',
  'raw-sql':
    'SQL prepared from a string or taken by text (`.st(…)`) with positional `?`: write it as sql`… ${value}` (src/core/archive/sql.ts)',
};

/** The counts of one file: `{ 'as-unknown-as': n, 'non-null': n, 'raw-sql': n }` (zeros left out). */
export function habitsOf(fileName, text) {
  const sf = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const n = { 'as-unknown-as': 0, 'non-null': 0, 'raw-sql': 0 };
  const visit = (node) => {
    if (ts.isAsExpression(node) && ts.isAsExpression(node.expression) && node.expression.type.kind === ts.SyntaxKind.UnknownKeyword)
      n['as-unknown-as']++;
    else if (ts.isNonNullExpression(node)) n['non-null']++;
    else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'prepare' &&
      node.arguments.length > 0 &&
      !/\bsql\.ts$/.test(fileName)
    )
      n['raw-sql']++;
    else if (isPositionalSt(node)) n['raw-sql']++;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return Object.fromEntries(Object.entries(n).filter(([, v]) => v > 0));
}

const LITERALS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
]);
/** statement methods that switch how rows come back (not a binding) */
const MODES = new Set(['raw', 'pluck', 'expand', 'safeIntegers']);
/** statement methods whose arguments are bound to its parameters */
const BINDS = new Set(['get', 'all', 'run', 'iterate', 'bind']);

/** Whether some literal piece of `node` (strings, template parts, nested ones included) holds a `?`. */
function literalMark(node) {
  if (LITERALS.has(node.kind)) return node.text.includes('?');
  return ts.forEachChild(node, (ch) => (literalMark(ch) ? true : undefined)) === true;
}

/** `x.st(text)` with a `?` in its literal text, or bound to arguments in the same chain (`.st(t).raw(true).all(a)`). */
function isPositionalSt(node) {
  if (
    !ts.isCallExpression(node) ||
    !ts.isPropertyAccessExpression(node.expression) ||
    node.expression.name.text !== 'st' ||
    node.arguments.length !== 1
  )
    return false;
  if (literalMark(node.arguments[0])) return true;
  let at = node;
  for (;;) {
    const access = at.parent;
    if (!access || !ts.isPropertyAccessExpression(access) || access.expression !== at) return false;
    const call = access.parent;
    if (!call || !ts.isCallExpression(call) || call.expression !== access) return false;
    const name = access.name.text;
    if (BINDS.has(name)) return call.arguments.length > 0;
    if (!MODES.has(name)) return false;
    at = call;
  }
}

/** Problems (a count over its ceiling), counts under their ceilings, and totals, for every file's counts. */
export function checkHabits(byFile, allowlist) {
  const problems = [];
  const shrunk = [];
  const totals = { 'as-unknown-as': 0, 'non-null': 0, 'raw-sql': 0 };
  for (const [file, counts] of byFile) {
    for (const [habit, count] of Object.entries(counts)) {
      totals[habit] += count;
      const ceiling = allowlist[file]?.[habit] ?? 0;
      if (count > ceiling) problems.push(`${file}: ${count} × ${HABITS[habit]} (allowed here: ${ceiling})`);
      else if (count < ceiling) shrunk.push({ file, habit, count, ceiling });
    }
    for (const [habit, ceiling] of Object.entries(allowlist[file] ?? {}))
      if (!(habit in counts)) shrunk.push({ file, habit, count: 0, ceiling });
  }
  for (const file of Object.keys(allowlist))
    if (!byFile.has(file)) for (const [habit, ceiling] of Object.entries(allowlist[file])) shrunk.push({ file, habit, count: 0, ceiling });
  return { problems, shrunk, totals };
}

/** The allowlist with every ceiling lowered to the current count (never raised; zeros and gone files dropped). */
export function loweredHabits(allowlist, byFile) {
  const out = {};
  for (const file of Object.keys(allowlist).sort()) {
    const counts = byFile.get(file) ?? {};
    const kept = {};
    for (const [habit, ceiling] of Object.entries(allowlist[file])) {
      const c = Math.min(ceiling, counts[habit] ?? 0);
      if (c > 0) kept[habit] = c;
    }
    if (Object.keys(kept).length) out[file] = kept;
  }
  return out;
}
