/**
 * LibraryQuery → SQL. Everything user-supplied travels as a bound parameter;
 * the only text spliced into SQL comes from fixed tables below.
 */
import {
  isLabelSort,
  libraryQuerySchema,
  parseLabelSort,
  DEFAULT_PAGE,
  type LabelCondition,
  type LibraryQuery,
  type SortField,
} from '../../shared/query';
import { termClause } from './term-filter';
import { and } from './sql';
import { growthClause, growthExpr, growthSpec } from './growth-sql';
import { QueryError, timeBound } from './query-error';

export { QueryError, timeBound };
import { parseSearch, SearchSyntaxError } from '../../shared/search-syntax';
import { languageCondition } from './sql-language';
import { threadCondition } from './sql-thread';

export interface Where {
  /** joined with AND; refer to items as `i` */
  clauses: string[];
  params: unknown[];
  /**
   * Clause → a cheaper equivalent count when that clause is the only filter: the
   * sub-select yields each matching item exactly once (an FTS rowid, one label value
   * per item and field), so `count(*)` over it equals the count over items.
   */
  counts?: Map<string, string>;
  /**
   * The clauses of a sorted walk's second phase (the rows whose sort value is unknown, walked by
   * rid) when they differ from `clauses` (a network's `+`, decided for that phase's rows: see
   * buildWhere); same params. Computed when a page gets there.
   */
  unknownClauses?: () => string[];
}

/**
 * User text → a safe FTS5 expression (src/shared/search-syntax.ts): words and "phrases" re-quoted,
 * OR / NOT / AND / parentheses / NEAR as operators, `word*` a prefix. Null when nothing
 * searchable is left (the caller falls back to a substring match). A malformed query is a
 * QueryError (a user error) whose message says what to write.
 */
export function ftsExpression(input: string): string | null {
  try {
    return parseSearch(input);
  } catch (e) {
    if (e instanceof SearchSyntaxError) throw new QueryError(e.message);
    throw e;
  }
}

function numericOrNull(v: string | number | boolean): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const t = v.trim();
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** Stored forms that count as equal to a condition value (booleans are stored 1/0). */
function eqCandidates(v: string | number | boolean): unknown[] {
  if (typeof v === 'boolean') return [v ? 1 : 0];
  if (typeof v === 'number') return [v];
  const out: unknown[] = [v];
  const n = numericOrNull(v);
  if (n !== null) out.push(n);
  if (v === 'true') out.push(1);
  if (v === 'false') out.push(0);
  return out;
}

/**
 * Whether a sub-select (`FROM ... WHERE ...` text + params) matches many rows
 * (the archive answers with a capped count). Lets the builder pick a plan: a small
 * matching set is materialised (`rid IN (...)`), a dense one is probed per row
 * (`EXISTS`) while the sort index is walked, so a page costs about the same whether
 * the condition matches 5 000 or 500 000 items.
 */
export type Estimator = (fromWhere: string, params: unknown[], minFor?: (items: number) => number) => boolean;
export const DENSE = 5000;

/** Runs a `SELECT count(*) AS n, … AS m` sample (buildWhere's walk choice) and returns its row. */
export type Sampler = (sql: string, params: unknown[]) => { n: number; m: number };
/** rows of a sort walk sampled to choose it (each a row read: 2,000 took 40-240 ms at 1M), and the share a filter must keep */
const SAMPLE_ROWS = 300;
const WALK_DENSITY = 0.01;

/**
 * The label_fields id of a (family, field) pair, as SQL taking those two parameters: a
 * constant sub-select SQLite runs once, so `ff = ${LABEL_FIELD}` is an index constraint on
 * the item_labels key (ff, value, item_rid). An unknown pair gives NULL, which matches nothing.
 */
export const LABEL_FIELD = '(SELECT ff FROM label_fields WHERE family = ? AND field = ?)';

/**
 * SQLite JSON path of a label field inside `items.labels` (`$."family"."field"`), or null when
 * the names cannot be addressed unambiguously: a dotted field may be nested objects or one key
 * with a dot (flattenLabels names both alike), and quotes or control characters would end a
 * path label.
 */
export function labelJsonPath(family: string, field: string): string | null {
  const plain = (name: string): boolean => name !== '' && !/[".\\]/u.test(name) && ![...name].some((ch) => ch.charCodeAt(0) < 0x20);
  return plain(family) && plain(field) ? `$."${family}"."${field}"` : null;
}

/**
 * An item's effective value of one label field computed from its own row, as item_labels holds
 * it for range conditions: the analyst's override when there is one (an override to null reads
 * as x'', like a stored null label, so it never satisfies a range), else the value in the
 * item's `labels` JSON. Parameters: family, field, JSON path.
 */
const EFFECTIVE_LABEL =
  "COALESCE((SELECT iif(json_type(o.value) = 'null', x'', json_extract(o.value, '$')) FROM label_overrides o " +
  'WHERE o.item_rid = i.rid AND o.family = ? AND o.field = ?), json_extract(i.labels, ?))';

function labelClause(c: LabelCondition, w: Where, est?: Estimator): void {
  let cond: string;
  let vp: unknown[];
  switch (c.op) {
    case 'eq':
    case 'neq': {
      vp = eqCandidates(c.value);
      cond = `value ${c.op === 'eq' ? 'IN' : 'NOT IN'} (${vp.map(() => '?').join(', ')})`;
      break;
    }
    default: {
      const n = numericOrNull(c.value);
      if (n === null) throw new QueryError(`label condition ${c.family}.${c.field} ${c.op} needs a number`);
      const op = { gte: '>=', lte: '<=', gt: '>', lt: '<' }[c.op];
      // numbers sort before text (and blobs: null labels) in SQLite, so `< ''` bounds the range to numbers
      cond = `value ${op} ?${c.op === 'gte' || c.op === 'gt' ? " AND value < ''" : ''}`;
      vp = [n];
    }
  }
  const base = [c.family, c.field, ...vp];
  const path = labelJsonPath(c.family, c.field);
  // a dense range is probed from the item's own row, which needs a JSON path for the field
  const probe = c.op !== 'neq' && (c.op === 'eq' || path !== null);
  const dense = probe && est !== undefined && est(`FROM item_labels WHERE ff = ${LABEL_FIELD} AND ${cond}`, base);
  if (!dense) {
    const clause = `i.rid IN (SELECT item_rid FROM item_labels WHERE ff = ${LABEL_FIELD} AND ${cond})`;
    w.clauses.push(clause);
    (w.counts ??= new Map()).set(clause, `SELECT count(*) AS n FROM item_labels WHERE ff = ${LABEL_FIELD} AND ${cond}`);
    w.params.push(...base);
  } else if (c.op === 'eq') {
    // the whole key (ff, value, item_rid) is known: one primary-key probe per row
    w.clauses.push(`EXISTS (SELECT 1 FROM item_labels l WHERE l.ff = ${LABEL_FIELD} AND l.${cond} AND l.item_rid = i.rid)`);
    w.params.push(...base);
  } else {
    // numbers only, as in item_labels (text sorts above every number, blobs above text, NULL
    // compares false): `>=` as one BETWEEN (the value is computed once), `>` bounded by ''
    const v = EFFECTIVE_LABEL;
    const test = { gte: `${v} BETWEEN ? AND 9e999`, gt: `${v} > ? AND ${v} < ''`, lte: `${v} <= ?`, lt: `${v} < ?` }[
      c.op as 'gte' | 'gt' | 'lte' | 'lt'
    ];
    w.clauses.push(`(${test})`);
    const args = [c.family, c.field, path];
    w.params.push(...args, vp[0], ...(c.op === 'gt' ? args : []));
  }
}

/**
 * WHERE clauses of every filter (sort, limit, after ignored).
 *
 * `sortCol` (the items column the page walks, if any) lets the builder keep SQLite
 * on the sort index: a dense column filter on another column is written with a
 * unary `+` (no index), so a page walks the sort index and stops after `limit`
 * rows instead of collecting every match and sorting it (a temp b-tree per page).
 * Networks and kinds are written that way when they hold many of the rows the
 * sort walks (the estimator), a date range when the estimator finds it dense.
 */
/**
 * A watchlist's run (issue 27 #2): only the items first held for the list in that run
 * (`watch_items.run_id`, the rows the run counted as new), and only when the run is that list's.
 */
function runClause(type: string, list: string, run: string, w: Where): void {
  if (type !== 'watchlist') throw new QueryError('A run can only narrow a watchlist source: choose the watchlist, then its run.');
  w.clauses.push(
    'EXISTS (SELECT 1 FROM watch_items wi JOIN watch_runs wr ON wr.run_id = wi.run_id WHERE wi.run_id = ? AND wr.watchlist_id = ? AND wi.platform = i.platform AND wi.kind = i.kind AND wi.item_id = i.id)',
  );
  w.params.push(run, list);
}

/** Conditions on one column each: relevance, language, thread (the walk down parent_id). */
function plainClauses(q: LibraryQuery, w: Where): void {
  if (q.relevanceMin !== undefined) {
    w.clauses.push('i.relevance_p >= ?');
    w.params.push(q.relevanceMin);
  }
  for (const c of [q.languages?.length ? languageCondition(q.languages) : null, q.thread ? threadCondition(q.thread) : null]) {
    if (c === null) continue;
    w.clauses.push(c.sql);
    w.params.push(...c.params);
  }
}

export function buildWhere(
  q: LibraryQuery,
  est?: Estimator,
  sortCol?: string | null,
  walkOpts: { dir?: 'asc' | 'desc'; sample?: Sampler } = {},
): Where {
  const { dir = 'desc', sample } = walkOpts;
  const w: Where = { clauses: [], params: [] };
  const walk = sortCol !== undefined && sortCol !== null;
  const nets = q.platforms && q.platforms.length > 0 ? `i.platform IN (${q.platforms.map(() => '?').join(', ')})` : null;
  const kinds = q.kinds && q.kinds.length > 0 ? `i.kind IN (${q.kinds.map(() => '?').join(', ')})` : null;
  const np = [...(nets ? (q.platforms ?? []) : []), ...(kinds ? (q.kinds ?? []) : [])];
  // Walking the sort index pays when the networks / kinds chosen are dense among the rows it
  // walks; when they are sparse there (a network without views sorted by views: the walk visits
  // every row that has one and keeps none, 0.9-1.6 s at 1M), their own index finds them and they
  // are sorted (issue 30). The walk's first SAMPLE_ROWS rows in the page's order tell which: a
  // capped count of the matches instead would itself walk every row when they are sparse. The
  // rows whose sort value is unknown are walked by rid afterwards: the same choice for them. A
  // label sort walks item_labels: always `+`.
  const netList = [nets, kinds].filter((c): c is string => c !== null);
  const plusFor = (phase: 'known' | 'unknown'): boolean => {
    if (sortCol === 'label' || sample === undefined) return true;
    const order =
      phase === 'known'
        ? `${sortCol === 'author_username' ? 'i.author_username COLLATE NOCASE' : `i.${sortCol}`} ${dir === 'asc' ? 'ASC' : 'DESC'}`
        : `i.rid ${dir === 'asc' ? 'ASC' : 'DESC'}`;
    const r = sample(
      `SELECT count(*) AS n, coalesce(sum(${and(netList.map((c) => c.replace(/\bi\./g, 'w.')))}), 0) AS m FROM (SELECT i.platform, i.kind FROM items i
        WHERE i.${sortCol} ${phase === 'known' ? 'IS NOT NULL' : 'IS NULL'} ORDER BY ${order} LIMIT ${SAMPLE_ROWS}) w`,
      np,
    );
    return r.n < SAMPLE_ROWS || r.m >= r.n * WALK_DENSITY;
  };
  const netClauses = (plus: boolean): string[] => netList.map((c) => (plus ? `+${c}` : c));
  const plusKnown = walk && netList.length > 0 && plusFor('known');
  w.clauses.push(...netClauses(plusKnown));
  w.params.push(...np);
  if (walk && netList.length > 0 && sortCol !== 'label') {
    w.unknownClauses = () => {
      const plus = plusFor('unknown');
      return plus === plusKnown ? w.clauses : [...netClauses(plus), ...w.clauses.slice(netList.length)];
    };
  }
  if (q.author !== undefined && q.author.trim() !== '') {
    const a = q.author.trim().replace(/^@/, '');
    // a union of two index lookups (an OR would make SQLite walk the sort index instead)
    w.clauses.push(
      'i.rid IN (SELECT rid FROM items WHERE author_id = ? UNION ALL SELECT rid FROM items WHERE author_username = ? COLLATE NOCASE)',
    );
    w.params.push(a, a);
  }
  if (q.since !== undefined || q.until !== undefined) {
    const range: string[] = [];
    const rp: unknown[] = [];
    if (q.since !== undefined) {
      range.push('published_at >= ?');
      rp.push(timeBound(q.since, false));
    }
    if (q.until !== undefined) {
      range.push('published_at < ?');
      rp.push(timeBound(q.until, true));
    }
    // walking another sort index pays when the range holds many rows; a narrow range is
    // read through items_published and sorted
    const plus = walk && sortCol !== 'published_at' && est !== undefined && est(`FROM items WHERE ${range.join(' AND ')}`, rp);
    for (const c of range) w.clauses.push(`${plus ? '+' : ''}i.${c}`);
    w.params.push(...rp);
  }
  if (q.text !== undefined) {
    const expr = ftsExpression(q.text);
    if (expr !== null) {
      // A per-row probe re-evaluates the expression for every visited row: cheap for one plain
      // term, costly for prefixes (expanded per probe) and several terms (which also make the
      // set sparser). Those are materialised (one doclist read, ~1 µs per match).
      const single = /^"(?:[^"]|"")*"$/u.test(expr) && !/\s/u.test(expr.slice(1, -1));
      // A probe (~40 µs) per visited row costs limit / density probes; materialising costs
      // ~1 µs per match (items × density). Probing wins above density² ≈ 40 × limit / items,
      // i.e. from ~sqrt(40 × 100 × items) matches (63 000 of 1M, 28 000 of 200 000).
      // Three plans. A small set (< DENSE) drives the query: rows fetched by rowid and sorted.
      // A bigger one is kept a membership test (`+` stops SQLite from fetching by rowid) while
      // the sort index is walked, so a page visits about limit / density rows. Frequent single
      // terms are probed per visited row instead of materialised (see the estimate above).
      const from = 'FROM items_fts WHERE items_fts MATCH ?';
      const many = est !== undefined && est(from, [expr]);
      const dense = many && single && est !== undefined && est(from, [expr], (n) => Math.sqrt(4000 * n));
      const clause = dense
        ? 'EXISTS (SELECT 1 FROM items_fts WHERE items_fts MATCH ? AND rowid = i.rid)'
        : `${many && walk ? '+' : ''}i.rid IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)`;
      w.clauses.push(clause);
      (w.counts ??= new Map()).set(clause, 'SELECT count(*) AS n FROM items_fts WHERE items_fts MATCH ?');
      w.params.push(expr);
    } else if (q.text.trim() !== '') {
      // nothing the tokenizer indexes (emoji, punctuation): plain substring match on the text
      w.clauses.push("i.text LIKE ? ESCAPE '\\'");
      w.params.push(`%${q.text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
  }
  for (const e of q.engagement ?? []) {
    const col = ENGAGEMENT_COLUMN[e.field];
    if (e.min !== undefined) {
      w.clauses.push(`i.${col} >= ?`);
      w.params.push(e.min);
    }
    if (e.max !== undefined) {
      w.clauses.push(`i.${col} <= ?`);
      w.params.push(e.max);
    }
  }
  for (const c of q.labels ?? []) labelClause(c, w, est);
  plainClauses(q, w);
  if (q.source) {
    const s = q.source;
    let calls: string, cp: unknown[];
    if (s.type === 'call') {
      calls = '?';
      cp = [s.id];
    } else if (s.type === 'walk') {
      calls = 'SELECT call_id FROM responses WHERE walk_id = ? UNION SELECT call_id FROM calls WHERE walk_id = ?';
      cp = [s.id, s.id];
    } else {
      // 'source': exact source string; 'watchlist': calls whose source is `watch:<id>`.
      // Matched on the stored answer (storeResponse's `source`) and on the ledger's
      // `source` column, which the request core fills with the same value.
      const src = s.type === 'watchlist' ? `watch:${s.id}` : s.id;
      calls = 'SELECT call_id FROM responses WHERE source = ? UNION SELECT call_id FROM calls WHERE source = ?';
      cp = [src, src];
    }
    const dense = est !== undefined && est(`FROM provenance WHERE call_id IN (${calls})`, cp);
    w.clauses.push(
      dense
        ? `EXISTS (SELECT 1 FROM provenance p WHERE p.item_rid = i.rid AND p.call_id IN (${calls}))`
        : `i.rid IN (SELECT item_rid FROM provenance WHERE call_id IN (${calls}))`,
    );
    w.params.push(...cp);
    if (s.run !== undefined) runClause(s.type, s.id, s.run, w);
  }
  for (const t of q.tags ?? []) {
    w.clauses.push('i.rid IN (SELECT it.item_rid FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id WHERE t.name = ?)');
    w.params.push(t);
  }
  for (const t of q.terms ?? []) {
    const c = termClause(t);
    if (c === null) throw new QueryError(`"${t.value}" cannot be one of the ${t.field}`);
    w.clauses.push(c.clause);
    w.params.push(...c.params);
  }
  if (q.growth) {
    const g = growthClause(growthSpec(q.growth));
    if (g !== null) w.clauses.push(g);
  }
  if (q.hasNote !== undefined) {
    w.clauses.push(`${q.hasNote ? '' : 'NOT '}EXISTS (SELECT 1 FROM notes n WHERE n.item_rid = i.rid)`);
  }
  return w;
}

const ENGAGEMENT_COLUMN = { views: 'views', likes: 'likes', comments: 'comments', shares: 'shares', saves: 'saves' } as const;

const SORT_EXPR: Record<string, { expr: string; notNull: boolean }> = {
  published_at: { expr: 'i.published_at', notNull: false },
  likes: { expr: 'i.likes', notNull: false },
  views: { expr: 'i.views', notNull: false },
  comments: { expr: 'i.comments', notNull: false },
  shares: { expr: 'i.shares', notNull: false },
  relevance: { expr: 'i.relevance_p', notNull: false },
  first_seen_at: { expr: 'i.first_seen_at', notNull: true },
  author: { expr: 'i.author_username COLLATE NOCASE', notNull: false },
};

/**
 * How to walk a sort. Phase 0 walks rows whose sort value is known, in index
 * order; phase 1 the rows whose value is unknown (null / not judged), by rid.
 * Unknowns therefore come last in both directions.
 */
export interface SortPlan {
  field: string;
  dir: 'asc' | 'desc';
  /** FROM of phase 0 (items are always `i`) */
  from0: string;
  /** clause selecting rows with a known sort value, and its params */
  known: string;
  knownParams: unknown[];
  /** sort expression of phase 0 (may carry a collation) and the selected value */
  expr: string;
  valueExpr: string;
  /** tie-breaker column (equals i.rid) */
  tie: string;
  /** clause selecting rows with an unknown sort value; null when there are none */
  unknown: string | null;
  unknownParams: unknown[];
}

export const DEFAULT_SORT = { field: 'published_at', dir: 'desc' } as const;

export function sortPlan(q: LibraryQuery): SortPlan {
  const s = q.sort ?? DEFAULT_SORT;
  const field = s.field as SortField;
  if (isLabelSort(field)) {
    const { family, field: f } = parseLabelSort(field);
    // walks the item_labels key (ff, value, item_rid) directly; x'' = null label
    return {
      field,
      dir: s.dir,
      from0: 'item_labels sl JOIN items i ON i.rid = sl.item_rid',
      known: `sl.ff = ${LABEL_FIELD} AND sl.value < x''`,
      knownParams: [family, f],
      expr: 'sl.value',
      valueExpr: 'sl.value',
      tie: 'sl.item_rid',
      unknown: `i.rid NOT IN (SELECT item_rid FROM item_labels WHERE ff = ${LABEL_FIELD} AND value < x'')`,
      unknownParams: [family, f],
    };
  }
  if (field === 'growth') {
    // growth over the query's period (growth-sql.ts): an expression, no index to walk
    if (!q.growth) throw new QueryError('sorting by growth needs a growth period: growth { field, from, to? }');
    const e = growthExpr(growthSpec(q.growth));
    return {
      field,
      dir: s.dir,
      from0: 'items i',
      known: `${e} IS NOT NULL`,
      knownParams: [],
      expr: e,
      valueExpr: e,
      tie: 'i.rid',
      unknown: `${e} IS NULL`,
      unknownParams: [],
    };
  }
  const base = SORT_EXPR[field];
  if (!base) throw new QueryError(`unknown sort field: ${String(field)}`);
  const col = base.expr.replace(/ COLLATE NOCASE$/, '');
  return {
    field,
    dir: s.dir,
    from0: 'items i',
    known: `${col} IS NOT NULL`,
    knownParams: [],
    expr: base.expr,
    valueExpr: col,
    tie: 'i.rid',
    unknown: base.notNull ? null : `${col} IS NULL`,
    unknownParams: [],
  };
}

/** The items column a sort plan walks ('label' for label sorts): see buildWhere. */
export function sortColumn(plan: SortPlan): string | null {
  if (plan.field === 'growth') return null; // an expression: nothing to walk
  return plan.from0 === 'items i' ? plan.valueExpr.replace(/^i\./, '') : 'label';
}

/** Validate + normalise input from any door. */
export function parseQuery(q: LibraryQuery): LibraryQuery {
  const r = libraryQuerySchema.safeParse(q);
  if (!r.success) throw new QueryError(`invalid query: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

export function pageSize(q: LibraryQuery): number {
  return q.limit ?? DEFAULT_PAGE;
}
