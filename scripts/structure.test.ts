import { describe, expect, it } from 'vitest';
import { buildGraph, cyclicComponents, importsOf, oversized, resolveRelative, shortestCycle } from './structure.mjs';
import { functionsOf, longFunctions, lowered } from './structure-functions.mjs';
import { checkHabits, habitsOf, loweredHabits } from './structure-habits.mjs';

const graphOf = (files: Record<string, string>) => buildGraph(Object.keys(files), (f) => files[f]);

describe('structure check: imports', () => {
  it('reads static, re-exported, dynamic and type-only imports', () => {
    const found = importsOf(
      '/s/a.ts',
      [
        "import { x } from './x';",
        "import type { T } from './t';",
        "import { type U, type V } from './u';",
        "import { type W, w } from './w';",
        "export * from './all';",
        "export type { Z } from './z';",
        "const m = await import('./lazy');",
        "type L = import('./typeref').L;",
        "import 'zod';",
      ].join('\n'),
    );
    expect(found).toEqual([
      { spec: './x', typeOnly: false },
      { spec: './t', typeOnly: true },
      { spec: './u', typeOnly: true },
      { spec: './w', typeOnly: false },
      { spec: './all', typeOnly: false },
      { spec: './z', typeOnly: true },
      { spec: './lazy', typeOnly: false },
      { spec: './typeref', typeOnly: true },
      { spec: 'zod', typeOnly: false },
    ]);
  });

  it('resolves a relative specifier to a file (extension, .js written for .ts, index)', () => {
    const files = new Set(['/s/a.ts', '/s/b.tsx', '/s/dir/index.ts']);
    const has = (p: string) => files.has(p);
    expect(resolveRelative('/s/x.ts', './a', has)).toBe('/s/a.ts');
    expect(resolveRelative('/s/x.ts', './a.js', has)).toBe('/s/a.ts');
    expect(resolveRelative('/s/x.ts', './b', has)).toBe('/s/b.tsx');
    expect(resolveRelative('/s/x.ts', './dir', has)).toBe('/s/dir/index.ts');
    expect(resolveRelative('/s/x.ts', 'zod', has)).toBeNull();
    expect(resolveRelative('/s/x.ts', './missing', has)).toBeNull();
  });

  it('finds a cycle, type-only edges included, and prints it file by file', () => {
    const g = graphOf({
      '/s/main.ts': "import { w } from './watch';\nimport { u } from './util';",
      '/s/watch.ts': "import type { Io } from './main';",
      '/s/util.ts': '',
    });
    const comps = cyclicComponents(g);
    expect(comps).toEqual([['/s/main.ts', '/s/watch.ts']]);
    expect(shortestCycle(g, comps[0])).toEqual(['/s/main.ts', '/s/watch.ts', '/s/main.ts']);
  });

  it('reports no cycle once the shared piece has its own module', () => {
    const g = graphOf({
      '/s/main.ts': "import { w } from './watch';\nimport type { Io } from './io';",
      '/s/watch.ts': "import type { Io } from './io';",
      '/s/io.ts': 'export interface Io {}',
    });
    expect(cyclicComponents(g)).toEqual([]);
  });

  it('finds the shortest cycle inside a larger tangle', () => {
    const g = graphOf({
      '/s/a.ts': "import './b';",
      '/s/b.ts': "import './c';\nimport './a';",
      '/s/c.ts': "import './a';",
    });
    const [comp] = cyclicComponents(g);
    expect(comp).toHaveLength(3);
    expect(shortestCycle(g, comp, '/s/a.ts')).toEqual(['/s/a.ts', '/s/b.ts', '/s/a.ts']);
  });
});

describe('structure check: oversized files (a ratchet)', () => {
  const counts = (o: Record<string, number>) => new Map(Object.entries(o));

  it('fails a file over the limit that is not allowlisted', () => {
    const r = oversized(counts({ 'src/big.ts': 501, 'src/ok.ts': 500 }), {});
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/^src\/big\.ts: 501 lines/);
  });

  it('lets an allowlisted file shrink but never grow past its ceiling', () => {
    expect(oversized(counts({ 'src/big.ts': 900 }), { 'src/big.ts': 900 }).problems).toEqual([]);
    const shrunk = oversized(counts({ 'src/big.ts': 850 }), { 'src/big.ts': 900 });
    expect(shrunk.problems).toEqual([]);
    expect(shrunk.shrunk).toEqual([{ file: 'src/big.ts', lines: 850, ceiling: 900 }]);
    const grown = oversized(counts({ 'src/big.ts': 901 }), { 'src/big.ts': 900 });
    expect(grown.problems[0]).toMatch(/over its allowlisted ceiling of 900/);
  });

  it('notes entries for files now within the limit or gone', () => {
    const r = oversized(counts({ 'src/was-big.ts': 420 }), { 'src/was-big.ts': 900, 'src/gone.ts': 700 });
    expect(r.problems).toEqual([]);
    expect(r.shrunk.map((s) => s.file)).toEqual(['src/was-big.ts']);
    expect(r.stale).toEqual(['src/gone.ts']);
  });
});

describe('structure check: long functions (a ratchet)', () => {
  const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');

  it('names each function by where it sits and measures it first line to last', () => {
    const text = [
      `export function outer() {\n${body(6)}\n  const inner = () => {\n${body(4)}\n  };\n}`,
      `class Box {\n  open(): void {\n${body(3)}\n  }\n}`,
      `describe('pacer', () => {\n  it('waits', () => 1);\n});`,
      `program.command('call').description('one call').action(async () => {\n${body(3)}\n});`,
      `const obj = { run: function () { return 1; } };`,
    ].join('\n');
    const fns = functionsOf('/s/a.ts', text);
    expect(fns.map((f) => f.name)).toEqual([
      'outer',
      'outer > inner',
      'Box.open',
      "describe('pacer') callback",
      "describe('pacer') callback > it('waits') callback",
      "command('call')…action callback",
      'run',
    ]);
    expect(fns[0].lines).toBe(10);
    expect(fns[1].lines).toBe(4);
  });

  it('fails a new long function, lets a listed one shrink but never grow, and lowers ceilings only', () => {
    const byFile = (lines: number) =>
      new Map([
        [
          'src/a.ts',
          [
            { name: 'big', lines, line: 1 },
            { name: 'small', lines: 10, line: 90 },
          ],
        ],
      ]);
    expect(longFunctions(byFile(81), {}).problems[0]).toMatch(/^src\/a\.ts: big \(line 1\): 81 lines \(limit 80/);
    expect(longFunctions(byFile(80), {}).problems).toEqual([]);
    expect(longFunctions(byFile(120), { 'src/a.ts: big': 120 }).problems).toEqual([]);
    expect(longFunctions(byFile(121), { 'src/a.ts: big': 120 }).problems[0]).toMatch(/over its allowlisted ceiling of 120/);
    const r = longFunctions(byFile(100), { 'src/a.ts: big': 120, 'src/a.ts: gone': 90 });
    expect(r.shrunk).toEqual([{ key: 'src/a.ts: big', lines: 100, ceiling: 120 }]);
    expect(r.stale).toEqual(['src/a.ts: gone']);
    expect(lowered({ 'src/a.ts: big': 120, 'src/a.ts: gone': 90 }, byFile(100))).toEqual({ 'src/a.ts: big': 100 });
    expect(lowered({ 'src/a.ts: big': 120 }, byFile(130))).toEqual({ 'src/a.ts: big': 120 });
    expect(lowered({ 'src/a.ts: big': 120 }, byFile(70))).toEqual({});
  });

  it('counts the habits of production code: `as unknown as`, non-null assertions, SQL prepared from strings', () => {
    const text = [
      'const a = x as unknown as Foo;',
      'const b = y as Foo;',
      'const c = z!.w;',
      'const d = m!;',
      "const st = db.prepare('SELECT * FROM t WHERE id = ?');",
      'const q = c.sql.get(sql`SELECT 1 FROM t WHERE id = ${id}`);',
    ].join('\n');
    expect(habitsOf('src/a.ts', text)).toEqual({ 'as-unknown-as': 1, 'non-null': 2, 'raw-sql': 1 });
    expect(habitsOf('src/core/archive/sql.ts', "db.prepare(strings.join('?'));")).toEqual({}); // the helper itself
  });

  it('counts archive statements taken by text with positional parameters, not fixed or tagged ones', () => {
    const counted = [
      "c.st('SELECT id FROM t WHERE a = ?').get(a);", // `?` in the text
      'ctx.st(`SELECT id FROM t WHERE a = ? AND b = ${B}`).all(a);', // in a template's fixed part
      "c.st(`INSERT INTO t VALUES ${rows.map(() => '(?, ?)').join(', ')}`).run(...args);", // in a fragment spliced in
      'const one = c.st("UPDATE t SET a = ? WHERE id = ?");', // kept in a variable: judged by its text
      'c.st(`SELECT i.rid FROM items i ${where}`).raw(true).iterate(...params);', // bound through a mode switch
      'c.st(text).pluck().all(fieldNo, ...w.params);',
      'c.st(INSERT_CALL).run(args);',
    ];
    for (const line of counted) expect(habitsOf('src/core/archive/a.ts', line), line).toEqual({ 'raw-sql': 1 });
    const allowed = [
      "c.st('SELECT count(*) AS n FROM items').get();", // fixed SQL, no parameter
      'c.st(`SELECT count(*) AS c FROM items i WHERE ${range}`).get();', // built from fixed fragments, run without arguments
      "c.st(`WITH RECURSIVE ${values} SELECT count(*) AS n FROM vals WHERE ${x ? 'a' : 'b'}`).get();", // a `?` of code, not of SQL
      'c.sql.get(sql`SELECT 1 FROM t WHERE id = ${id}`);',
      'c.sql.insert`items ON CONFLICT DO NOTHING`({ id, kind });',
      "c.st('SELECT 1').raw(true).all();",
      "first.st('x ?', 'y');", // not the one-argument statement lookup
    ];
    for (const line of allowed) expect(habitsOf('src/core/archive/a.ts', line), line).toEqual({});
    expect(habitsOf('src/core/archive/a.ts', counted.join('\n') + '\n' + allowed.join('\n'))).toEqual({ 'raw-sql': counted.length });
  });

  it('a habit count may shrink, never grow; a file not listed may have none', () => {
    const by = (n: number) => new Map([['src/a.ts', { 'non-null': n }]]);
    expect(checkHabits(by(1), {}).problems[0]).toMatch(/^src\/a\.ts: 1 × a non-null assertion/);
    expect(checkHabits(by(3), { 'src/a.ts': { 'non-null': 3 } }).problems).toEqual([]);
    expect(checkHabits(by(4), { 'src/a.ts': { 'non-null': 3 } }).problems).toHaveLength(1);
    expect(checkHabits(by(2), { 'src/a.ts': { 'non-null': 3 } }).shrunk).toEqual([
      { file: 'src/a.ts', habit: 'non-null', count: 2, ceiling: 3 },
    ]);
    expect(loweredHabits({ 'src/a.ts': { 'non-null': 3 }, 'src/gone.ts': { 'raw-sql': 1 } }, by(2))).toEqual({
      'src/a.ts': { 'non-null': 2 },
    });
    expect(loweredHabits({ 'src/a.ts': { 'non-null': 3 } }, by(5))).toEqual({ 'src/a.ts': { 'non-null': 3 } });
  });
});
