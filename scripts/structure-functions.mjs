// Long functions: a ratchet beside the file-size one (scripts/structure.mjs). Every function of
// production code under src/ (declarations, methods, constructors, accessors, function expressions
// and arrow functions) is measured from its first line to its last; one over MAX_FUNCTION_LINES
// fails unless scripts/long-functions-allowlist.json lists it, and a listed one may shrink but never
// grow past its number (a ceiling). A function is named by where it sits, so the name survives
// edits elsewhere in the file: `createApiCore > call`, `Archive.upsert`, `describe callback` …
// (a second function of the same name in the file gets `#2`).
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;

const propName = (n) =>
  n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n) || ts.isPrivateIdentifier(n))
    ? n.text
    : n
      ? '[computed]'
      : null;

/** What a function is called where it is written: its own name, the variable or property it is assigned to, or the call it is handed to. */
function ownName(node) {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node)) && node.name)
    return propName(node.name);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isGetAccessorDeclaration(node)) return `get ${propName(node.name)}`;
  if (ts.isSetAccessorDeclaration(node)) return `set ${propName(node.name)}`;
  let p = node.parent;
  while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isSatisfiesExpression(p))) p = p.parent;
  if (!p) return '(anonymous)';
  if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) return propName(p.name);
  if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken) return p.left.getText().replace(/\s+/g, '');
  if (ts.isCallExpression(p) || ts.isNewExpression(p)) return `${calleeName(p)} callback`;
  if (ts.isExportAssignment(p)) return 'default';
  return '(anonymous)';
}

/**
 * A call's name for the function handed to it: the called name, and for a chain the innermost call
 * named by a string (`command('call')…action`, `describe('pacer')`), so the name does not hold whole lines.
 */
function calleeName(call) {
  const last = (e) =>
    ts.isPropertyAccessExpression(e) ? e.name.text : ts.isIdentifier(e) ? e.text : ts.isCallExpression(e) ? last(e.expression) : '(call)';
  const own = last(call.expression);
  let named = null;
  for (let e = call.expression; e;) {
    const c = ts.isCallExpression(e) ? e : null;
    if (c && c.arguments.length > 0 && ts.isStringLiteralLike(c.arguments[0]))
      named = `${last(c.expression)}('${c.arguments[0].text.slice(0, 30)}')`;
    e = ts.isPropertyAccessExpression(e) ? e.expression : ts.isCallExpression(e) ? e.expression : null;
  }
  const first = call.arguments.length > 0 && ts.isStringLiteralLike(call.arguments[0]) ? `('${call.arguments[0].text.slice(0, 30)}')` : '';
  return named && !first ? `${named}…${own}` : `${own}${first}`;
}

const isFunction = (n) =>
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n) ||
  ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n);

/** Every function of a file with its qualified name and length in lines: `[{ name, lines, line }]`. */
export function functionsOf(fileName, text) {
  const sf = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out = [];
  const seen = new Map();
  const visit = (node, scope) => {
    let next = scope;
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) next = [...scope, node.name?.text ?? ownName(node)];
    else if (isFunction(node) && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.end).line;
      const own = ownName(node);
      const inClass = ts.isClassLike(node.parent);
      let name = scope.length === 0 ? own : `${scope.join(inClass ? '.' : ' > ')}${inClass ? '.' : ' > '}${own}`;
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      if (n > 1) name = `${name} #${n}`;
      out.push({ name, lines: end - start + 1, line: start + 1 });
      next = [...scope, own];
    }
    ts.forEachChild(node, (c) => visit(c, next));
  };
  visit(sf, []);
  return out;
}

/**
 * The ratchet's verdict over `{ file → functions }`, against `allowlist` (`"file: name" → ceiling`):
 * problems (new long functions, listed ones grown), allowed, shrunk (note: lower the ceiling) and stale entries.
 */
export function longFunctions(byFile, allowlist, max = MAX_FUNCTION_LINES) {
  const problems = [],
    allowed = [],
    shrunk = [];
  const present = new Set();
  for (const [file, fns] of byFile) {
    for (const f of fns) {
      const key = `${file}: ${f.name}`;
      present.add(key);
      const ceiling = allowlist[key];
      if (f.lines <= max) {
        if (ceiling !== undefined) shrunk.push({ key, lines: f.lines, ceiling });
        continue;
      }
      if (ceiling === undefined) problems.push(`${key} (line ${f.line}): ${f.lines} lines (limit ${max}; split it into steps with names)`);
      else if (f.lines > ceiling)
        problems.push(
          `${key} (line ${f.line}): ${f.lines} lines, over its allowlisted ceiling of ${ceiling} (listed functions may only shrink)`,
        );
      else {
        allowed.push({ key, lines: f.lines, ceiling });
        if (f.lines < ceiling) shrunk.push({ key, lines: f.lines, ceiling });
      }
    }
  }
  const stale = Object.keys(allowlist).filter((k) => !present.has(k));
  return { problems, allowed, shrunk, stale };
}

/** The allowlist with every ceiling lowered to the function's length now, entries within the limit or gone dropped (never raised, never added). */
export function lowered(allowlist, byFile, max = MAX_FUNCTION_LINES) {
  const now = new Map();
  for (const [file, fns] of byFile) for (const f of fns) now.set(`${file}: ${f.name}`, f.lines);
  const next = {};
  for (const [key, ceiling] of Object.entries(allowlist)) {
    const lines = now.get(key);
    if (lines !== undefined && lines > max) next[key] = Math.min(lines, ceiling);
  }
  return next;
}
