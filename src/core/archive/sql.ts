/**
 * The archive's SQL helper: statements written as tagged templates, so every value sits next to
 * the column it fills (no positional `?` lists to keep in step), and row inserts written as an
 * object of columns. Values are always bound parameters; only `raw()` fragments (SQL built from
 * fixed tables, e.g. sql-query.ts's clauses) are spliced into the text.
 *
 * Prepared statements are cached per connection: a template without `raw()` parts by its call
 * site (the template strings object is the same one on every call, so a hot statement costs one
 * map lookup), anything else by its text (bounded by the query shapes).
 */
import type { RunResult, Statement } from 'better-sqlite3';
import type { Db } from './connection';

/** A piece of SQL text spliced as is (never user input). */
export class RawSql {
  constructor(readonly text: string) {}
}
export const raw = (text: string): RawSql => new RawSql(text);

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
export function and(clauses: string[]): string {
  return clauses.length === 0 ? '1' : clauses.join(' AND ');
}

/** The connection's prepared statements, by call site or by text. */
export class Statements {
  private readonly byText = new Map<string, Statement>();
  private bySite = new WeakMap<TemplateStringsArray, Statement>();
  private inserts = new WeakMap<TemplateStringsArray, (row: Record<string, unknown>) => RunResult>();

  constructor(private readonly db: Db) {}

  /** A statement of this exact text (cached; cleared past 500 shapes). */
  text(text: string): Statement {
    let s = this.byText.get(text);
    if (!s) {
      if (this.byText.size > 500) this.byText.clear();
      s = this.db.prepare(text);
      this.byText.set(text, s);
    }
    return s;
  }

  /** The statement of a tagged template and the values to bind to it. */
  of(q: SqlQuery): { st: Statement; args: unknown[] } {
    const { strings, values } = q;
    let spliced = false;
    for (let k = 0; k < values.length; k++) if (values[k] instanceof RawSql) spliced = true;
    if (!spliced) {
      let st = this.bySite.get(strings);
      if (!st) {
        st = this.db.prepare(strings.join('?'));
        this.bySite.set(strings, st);
      }
      return { st, args: values };
    }
    let text = strings[0];
    const args: unknown[] = [];
    for (let k = 0; k < values.length; k++) {
      const v = values[k];
      if (v instanceof RawSql) text += v.text;
      else {
        text += '?';
        args.push(v);
      }
      text += strings[k + 1];
    }
    return { st: this.text(text), args };
  }

  run(q: SqlQuery): RunResult {
    const { st, args } = this.of(q);
    return st.run(...args);
  }
  get<T>(q: SqlQuery): T | undefined {
    const { st, args } = this.of(q);
    return st.get(...args) as T | undefined;
  }
  all<T>(q: SqlQuery): T[] {
    const { st, args } = this.of(q);
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
        st = this.db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ${tail}`);
      }
      const args = new Array<unknown>(cols.length);
      for (let k = 0; k < cols.length; k++) args[k] = row[cols[k]];
      return st.run(args);
    };
  }

  clear(): void {
    this.byText.clear();
    this.inserts = new WeakMap();
    this.bySite = new WeakMap();
  }
}
