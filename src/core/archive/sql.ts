/**
 * The archive's SQL helper: statements written as tagged templates, so every value sits next to
 * the column it fills (no positional `?` lists to keep in step), and row inserts written as an
 * object of columns. Values are always bound parameters; only `raw()` fragments (SQL built from
 * fixed tables, e.g. sql-query.ts's clauses) are spliced into the text.
 *
 * Prepared statements are cached per connection: a template without `raw()` or `part()` pieces by
 * its call site (the template strings object is the same one on every call, so a hot statement
 * costs one map lookup), one whose `raw()` fragments are the same objects as at its last call (kept
 * in constants) by its call site too, anything else by its text (bounded by the query shapes). Each way of
 * reading rows (objects, arrays, first column) has its own statements: a statement's mode is set
 * once, when it is prepared, and never switched under another caller.
 *
 * Two interfaces say what a function may do (docs/architecture.md "Read and write contexts"):
 * `SqlRead` reads (get, all, iterate and their array / first-column forms), `SqlWrite` also
 * writes (run, insert). `Statements` is both; the archive's read context (context.ts `ReadCtx`)
 * hands out only `SqlRead`, so a reading function cannot write by mistake.
 */
import type { RunResult, Statement } from 'better-sqlite3';
import type { Db } from './connection';

/** A piece of SQL text spliced as is (never user input). */
export class RawSql {
  constructor(readonly text: string) {}
}
export const raw = (text: string): RawSql => new RawSql(text);

/**
 * A piece of SQL with bound values of its own, spliced at its place with its values bound there:
 * a library query's filters (sql-query.ts `buildWhere`, whose clauses and parameters are built
 * from fixed fragments, in step, by that one builder) dropped into a statement as
 * sql`SELECT … FROM items i WHERE ${where(w)}`.
 */
export class SqlPart {
  constructor(
    readonly text: string,
    readonly values: readonly unknown[],
  ) {}
}
/** A template as a piece of another: part(sql`i.rid > ${from}`) spliced with its values. */
export function part(q: SqlQuery): SqlPart {
  let text = q.strings[0];
  const values: unknown[] = [];
  for (let k = 0; k < q.values.length; k++) {
    const v = q.values[k];
    if (v instanceof RawSql) text += v.text;
    else if (v instanceof SqlPart) {
      text += v.text;
      values.push(...v.values);
    } else {
      text += '?';
      values.push(v);
    }
    text += q.strings[k + 1];
  }
  return new SqlPart(text, values);
}

const tupleTexts = new Map<string, string>();
/**
 * Values bound as rows of `width` columns, for a multi-row insert:
 * sql`INSERT INTO t (a, b, c) VALUES ${tuples(flat, 3)}` with `flat` holding the rows one after
 * another (its length a multiple of `width`). The statement is kept per call site and row count.
 */
export function tuples(flat: readonly unknown[], width: number): SqlPart {
  const key = `${width}:${flat.length}`;
  let text = tupleTexts.get(key);
  if (text === undefined) {
    const row = `(${new Array<string>(width).fill('?').join(', ')})`;
    text = new Array<string>(flat.length / width).fill(row).join(', ');
    if (tupleTexts.size < 1000) tupleTexts.set(key, text);
  }
  return new SqlPart(text, flat);
}

const setTexts = new WeakMap<readonly string[], string>();
/**
 * An UPDATE's assignments `a = …, b = …` of the columns `cols` (keep the array in a constant: its
 * text is built once) to their values in `row`: sql`UPDATE t SET ${assignments(COLS, row)} WHERE …`.
 */
export function assignments<T extends object>(cols: ReadonlyArray<keyof T & string>, row: T): SqlPart {
  let text = setTexts.get(cols);
  if (text === undefined) {
    text = cols.map((k) => `${k} = ?`).join(', ');
    setTexts.set(cols, text);
  }
  const values = new Array<unknown>(cols.length);
  for (let k = 0; k < cols.length; k++) values[k] = row[cols[k]];
  return new SqlPart(text, values);
}

/** Values bound as a comma-separated list, for `IN (${list(ids)})` (at least one value). */
export const list = (values: readonly unknown[]): SqlPart => new SqlPart(values.map(() => '?').join(', '), values);
/** The clauses of a built filter followed by ` AND `, or nothing: `WHERE ${whereAnd(w)}i.platform = ${p}` (the same text as `and([...w.clauses, 'i.platform = ?'])`). */
export const whereAnd = (w: { clauses: readonly string[]; params: readonly unknown[] }): SqlPart =>
  new SqlPart(w.clauses.length ? `${w.clauses.join(' AND ')} AND ` : '', w.params);
/** The clauses of a built filter (`{ clauses, params }`) joined with AND (`1` for none), as a part. */
export const where = (w: { clauses: readonly string[]; params: readonly unknown[] }, ...more: string[]): SqlPart =>
  new SqlPart(and([...w.clauses, ...more]), w.params);

/** A statement and its bound values, as written with `sql`. */
export interface SqlQuery {
  readonly strings: TemplateStringsArray;
  readonly values: unknown[];
}

/** sql`SELECT … WHERE id = ${id}`: the values are bound parameters, `raw(…)` values are spliced. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlQuery {
  return { strings, values };
}

/** `a AND b AND …` of clauses, or `1` for none (as a raw fragment). */
export function and(clauses: readonly string[]): string {
  return clauses.length === 0 ? '1' : clauses.join(' AND ');
}

/** Reading rows: what a function that only reads is given (context.ts `ReadCtx`). */
export interface SqlRead {
  /** the first row as an object, or undefined */
  get<T>(q: SqlQuery): T | undefined;
  /** every row as an object */
  all<T>(q: SqlQuery): T[];
  /** every row as an object, one at a time (large results) */
  iterate<T>(q: SqlQuery): IterableIterator<T>;
  /** every row as an array of its columns, in order (cheaper than objects on a large result) */
  rows<T extends unknown[]>(q: SqlQuery): T[];
  /** every row as an array of its columns, one at a time */
  iterateRows<T extends unknown[]>(q: SqlQuery): IterableIterator<T>;
  /** the first column of the first row, or undefined when there is no row */
  value<T>(q: SqlQuery): T | undefined;
  /** the one row a statement always yields (an aggregate, a row the caller just wrote); none is a bug, thrown as such */
  one<T>(q: SqlQuery): T;
  /** the first column of every row */
  values<T>(q: SqlQuery): T[];
}

/** Reading and writing rows: what a function that writes is given (context.ts `ArchiveCtx`). */
export interface SqlWrite extends SqlRead {
  run(q: SqlQuery): RunResult;
  /** an insert of one row given as an object of columns (Statements.insert) */
  insert(strings: TemplateStringsArray): (row: Record<string, unknown>) => RunResult;
}

/** How a statement returns rows; fixed when it is prepared. */
type Mode = 0 | 1 | 2;
const Mode = { Objects: 0, Arrays: 1, First: 2 } as const;

/** The connection's prepared statements, by call site or by text. */
export class Statements implements SqlWrite {
  private readonly byText = new Map<string, Statement>();
  /** per Mode: statements of templates with spliced pieces, by text */
  private readonly spliced: Array<Map<string, Statement>> = [new Map(), new Map(), new Map()];
  /** per Mode: statements of plain templates, by call site */
  private bySite: Array<WeakMap<TemplateStringsArray, Statement>> = [new WeakMap(), new WeakMap(), new WeakMap()];
  /** per Mode: the last statement of a template with raw() fragments or parts, by call site, with those (null for a bound value) */
  private rawSites: Array<WeakMap<TemplateStringsArray, { values: unknown[]; st: Statement }>> = [
    new WeakMap(),
    new WeakMap(),
    new WeakMap(),
  ];
  private inserts = new WeakMap<TemplateStringsArray, (row: Record<string, unknown>) => RunResult>();

  /**
   * `safeIntegers`: every statement reads integers as BigInt (salvage.ts copies rows exactly,
   * whatever their size); otherwise as numbers, as better-sqlite3 does by default.
   */
  constructor(
    private readonly db: Db,
    private readonly opts: { safeIntegers?: boolean } = {},
  ) {}

  private prepare(text: string): Statement {
    const st = this.db.prepare(text);
    return this.opts.safeIntegers ? st.safeIntegers(true) : st;
  }

  /** A statement of this exact text (cached; cleared past 500 shapes). */
  text(text: string): Statement {
    let s = this.byText.get(text);
    if (!s) {
      if (this.byText.size > 500) this.byText.clear();
      s = this.prepare(text);
      this.byText.set(text, s);
    }
    return s;
  }

  /** The statement of a tagged template and the values to bind to it. */
  of(q: SqlQuery): { st: Statement; args: unknown[] } {
    return this.prepared(q, Mode.Objects);
  }

  private prepared(q: SqlQuery, mode: Mode): { st: Statement; args: unknown[] } {
    const { strings, values } = q;
    let spliced = false;
    for (let k = 0; k < values.length; k++) if (values[k] instanceof RawSql || values[k] instanceof SqlPart) spliced = true;
    if (!spliced) {
      const sites = this.bySite[mode];
      let st = sites.get(strings);
      if (!st) {
        st = withMode(this.prepare(strings.join('?')), mode);
        sites.set(strings, st);
      }
      return { st, args: values };
    }
    // raw() fragments and parts kept in constants or built once before a loop: the same objects as
    // last time at this site, the same statement
    const last = this.rawSites[mode].get(strings);
    if (last && sameRaws(last.values, values)) {
      const args: unknown[] = [];
      for (let k = 0; k < values.length; k++) {
        const v = values[k];
        if (v instanceof SqlPart) for (const a of v.values) args.push(a);
        else if (!(v instanceof RawSql)) args.push(v);
      }
      return { st: last.st, args };
    }
    let text = strings[0];
    const args: unknown[] = [];
    for (let k = 0; k < values.length; k++) {
      const v = values[k];
      if (v instanceof RawSql) text += v.text;
      else if (v instanceof SqlPart) {
        text += v.text;
        for (const a of v.values) args.push(a);
      } else {
        text += '?';
        args.push(v);
      }
      text += strings[k + 1];
    }
    const texts = this.spliced[mode];
    let st = texts.get(text);
    if (!st) {
      if (texts.size > 500) texts.clear();
      st = withMode(this.prepare(text), mode);
      texts.set(text, st);
    }
    this.rawSites[mode].set(strings, { values: values.map((v) => (v instanceof RawSql || v instanceof SqlPart ? v : null)), st });
    return { st, args };
  }

  run(q: SqlQuery): RunResult {
    const { st, args } = this.prepared(q, Mode.Objects);
    return st.run(...args);
  }
  get<T>(q: SqlQuery): T | undefined {
    const { st, args } = this.prepared(q, Mode.Objects);
    return st.get(...args) as T | undefined;
  }
  all<T>(q: SqlQuery): T[] {
    const { st, args } = this.prepared(q, Mode.Objects);
    return st.all(...args) as T[];
  }
  iterate<T>(q: SqlQuery): IterableIterator<T> {
    const { st, args } = this.prepared(q, Mode.Objects);
    return st.iterate(...args) as IterableIterator<T>;
  }
  rows<T extends unknown[]>(q: SqlQuery): T[] {
    const { st, args } = this.prepared(q, Mode.Arrays);
    return st.all(...args) as T[];
  }
  iterateRows<T extends unknown[]>(q: SqlQuery): IterableIterator<T> {
    const { st, args } = this.prepared(q, Mode.Arrays);
    return st.iterate(...args) as IterableIterator<T>;
  }
  value<T>(q: SqlQuery): T | undefined {
    const { st, args } = this.prepared(q, Mode.First);
    return st.get(...args) as T | undefined;
  }
  one<T>(q: SqlQuery): T {
    const r = this.get<T>(q);
    if (r === undefined)
      throw new Error(`Internal error: the archive gave no row for ${q.strings.join('?').replace(/\s+/g, ' ').slice(0, 120)}`);
    return r;
  }
  values<T>(q: SqlQuery): T[] {
    const { st, args } = this.prepared(q, Mode.First);
    return st.all(...args) as T[];
  }

  /**
   * INSERT of one row given as an object of columns; the template names the table and what
   * follows the row: insert`items ON CONFLICT (platform, kind, id) DO NOTHING`({ platform, kind, id, … }).
   * The column list is read from the first row at each call site (keep one object literal per
   * site: its keys are the columns) and the statement cached with it; later rows bind by position
   * (cheaper than binding by name on the ingest path); an undefined value binds as NULL.
   */
  insert(strings: TemplateStringsArray): (row: Record<string, unknown>) => RunResult {
    let f = this.inserts.get(strings);
    if (!f) {
      f = this.inserter(strings.join(''));
      this.inserts.set(strings, f);
    }
    return f;
  }

  private inserter(spec: string): (row: Record<string, unknown>) => RunResult {
    const sp = spec.trim().search(/\s/);
    const table = sp < 0 ? spec.trim() : spec.trim().slice(0, sp);
    const tail = sp < 0 ? '' : spec.trim().slice(sp + 1);
    let st: Statement | null = null;
    let cols: string[] = [];
    return (row) => {
      if (st === null) {
        cols = Object.keys(row);
        st = this.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ${tail}`);
      }
      const args = new Array<unknown>(cols.length);
      for (let k = 0; k < cols.length; k++) args[k] = row[cols[k]];
      return st.run(args);
    };
  }

  clear(): void {
    this.byText.clear();
    for (const m of this.spliced) m.clear();
    this.inserts = new WeakMap();
    this.bySite = [new WeakMap(), new WeakMap(), new WeakMap()];
    this.rawSites = [new WeakMap(), new WeakMap(), new WeakMap()];
  }
}

/**
 * Whether `now` has the very raw() objects `before` had, and parts of the same text (null
 * elsewhere), in the same places (the bound values may differ): then the statement's text is the same.
 */
function sameRaws(before: unknown[], now: unknown[]): boolean {
  if (before.length !== now.length) return false;
  for (let k = 0; k < now.length; k++) {
    const a = before[k];
    const b = now[k];
    if (a === b) continue;
    if (a instanceof SqlPart && b instanceof SqlPart && a.text === b.text) continue;
    if (a !== null || b instanceof RawSql || b instanceof SqlPart) return false;
  }
  return true;
}

/** A new statement set to return rows the way `mode` says (a statement that returns no rows stays as it is). */
function withMode(st: Statement, mode: Mode): Statement {
  if (mode === Mode.Objects || !st.reader) return st;
  return mode === Mode.Arrays ? st.raw(true) : st.pluck(true);
}
