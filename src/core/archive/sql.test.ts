import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveCtx, type ReadCtx } from './context';
import { list, raw, sql, Statements, where, whereAnd, type SqlRead } from './sql';

const dbs: Database.Database[] = [];
function statements(): Statements {
  const db = new Database(':memory:');
  dbs.push(db);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b INTEGER)');
  db.exec("INSERT INTO t (a, b) VALUES ('x', 1), ('y', 2), ('z', 3)");
  return new Statements(db);
}
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

describe('the SQL helper', () => {
  it('safeIntegers: every way of reading gives integers as BigInt, exactly (salvage copies rows so)', () => {
    const db = new Database(':memory:');
    dbs.push(db);
    db.exec('CREATE TABLE big (n INTEGER)');
    const s = new Statements(db, { safeIntegers: true });
    s.run(sql`INSERT INTO big (n) VALUES (${2n ** 53n + 1n})`);
    const q = () => sql`SELECT n FROM big`;
    expect(s.value(q())).toBe(2n ** 53n + 1n);
    expect(s.rows(q())).toEqual([[2n ** 53n + 1n]]);
    expect(s.get(q())).toEqual({ n: 2n ** 53n + 1n });
    expect(new Statements(db).value(q())).toBe(2 ** 53);
  });

  it('reads rows as objects, arrays or first columns, each way with its own statement', () => {
    const s = statements();
    // one call site read every way: a statement's mode never leaks into another way's reads
    const q = (b: number) => sql`SELECT a, b FROM t WHERE b >= ${b} ORDER BY b`;
    expect(s.values<string>(q(2))).toEqual(['y', 'z']);
    expect(s.all(q(2))).toEqual([
      { a: 'y', b: 2 },
      { a: 'z', b: 3 },
    ]);
    expect(s.rows(q(3))).toEqual([['z', 3]]);
    expect(s.value(q(3))).toBe('z');
    expect(s.get(q(3))).toEqual({ a: 'z', b: 3 });
    expect([...s.iterateRows(q(2))]).toEqual([
      ['y', 2],
      ['z', 3],
    ]);
    expect([...s.iterate(q(3))]).toEqual([{ a: 'z', b: 3 }]);
    expect(s.value(q(9))).toBeUndefined();
  });

  it('prepares a plain template once per call site, a spliced one once per text', () => {
    const s = statements();
    const site = (b: number) => s.of(sql`SELECT a FROM t WHERE b = ${b}`).st;
    expect(site(1)).toBe(site(2));
    const spliced = (col: string, b: number) => s.of(sql`SELECT ${raw(col)} FROM t WHERE b = ${b}`).st;
    expect(spliced('a', 1)).toBe(spliced('a', 2));
    expect(spliced('a', 1)).not.toBe(spliced('b', 1));
    // raw() fragments kept in a constant: found by call site, the values still bound anew
    const col = raw('a');
    const constant = (r: typeof col, b: number) => s.of(sql`SELECT ${r} AS v FROM t WHERE b = ${b}`);
    expect(constant(col, 1).st).toBe(constant(col, 2).st);
    expect(constant(col, 2).args).toEqual([2]);
    expect(constant(raw('b'), 3).st.get(...constant(raw('b'), 3).args)).toEqual({ v: 3 });
    expect(constant(col, 3).st.get(...constant(col, 3).args)).toEqual({ v: 'z' });
    // a part built once before a loop: the same statement per row, its values bound each time
    const f = where({ clauses: ['a <> ?'], params: ['y'] });
    const row = (p: typeof f, b: number) => s.of(sql`SELECT a FROM t WHERE ${p} AND b >= ${b}`);
    expect(row(f, 1).st).toBe(row(f, 2).st);
    expect(row(f, 2).args).toEqual(['y', 2]);
    expect(s.values(sql`SELECT a FROM t WHERE ${whereAnd({ clauses: [], params: [] })}b >= ${2}`)).toEqual(['y', 'z']);
    expect(s.values(sql`SELECT a FROM t WHERE ${whereAnd({ clauses: ['a <> ?'], params: ['y'] })}b >= ${2}`)).toEqual(['z']);
  });

  it("splices a part with its values bound in their places, between the template's own", () => {
    const s = statements();
    const w = { clauses: ['t.a IN (?, ?)', 't.b > ?'], params: ['x', 'z', 0] };
    expect(s.values(sql`SELECT t.id FROM t WHERE t.id >= ${1} AND ${where(w)} AND t.b < ${5} ORDER BY t.id`)).toEqual([1, 3]);
    expect(s.values(sql`SELECT t.id FROM t WHERE ${where({ clauses: [], params: [] })} ORDER BY t.id LIMIT ${2}`)).toEqual([1, 2]);
    expect(s.values(sql`SELECT t.id FROM t WHERE ${where(w, 't.b > 1')}`)).toEqual([3]);
    expect(s.values(sql`SELECT a FROM t WHERE b > ${1} AND a IN (${list(['x', 'y', 'z'])}) AND b < ${9} ORDER BY a`)).toEqual(['y', 'z']);
  });

  it('gives a read context no way to write (checked by the compiler)', () => {
    const s = statements();
    const read: SqlRead = s;
    // @ts-expect-error a read context has no run
    expect(typeof read.run).toBe('function'); // the object can, the type cannot: a reading function never sees run
    // @ts-expect-error nor insert
    void read.insert;
    const db = new Database(':memory:');
    dbs.push(db);
    const c: ReadCtx = new ArchiveCtx(db);
    // @ts-expect-error nor the connection
    void c.db;
    // @ts-expect-error nor statements taken by text
    void c.st;
    expect(c.sql.value(sql`SELECT ${1} + ${1}`)).toBe(2);
  });
});
