/**
 * The analysis index's tables (`an_*`, docs/analysis.md "The analysis index"), kept in the archive
 * file and maintained by src/core/analysis/analysis-index.ts, which computes what goes in them
 * (terms, daily label counts) and reaches them as `archive.analysisTables`:
 *
 *  - `an_terms`: archive-wide totals per (field number, term), read top N by items through the
 *    partial index `an_terms_multi` (terms in more than one item) and the (field, term) key;
 *    `an_item_terms`: each item's term ids of one field (a blob, term-counts.ts reads it) with its
 *    publication time and counts, keyed by (field, UTC day, rid) so the items of a date range are
 *    neighbours on disk;
 *  - `an_daily`: items per (label field, UTC day, platform, kind, value), ff 0 per (day, platform, kind);
 *  - `an_state` (version, watermark, terms_upto, terms_stale), and the change logs `an_dirty` /
 *    `an_dirty_days` filled by triggers on `items` and `label_overrides`.
 *
 * A derived cache: created on first use, dropped and created again when the version changes.
 */
import type { AuthorCount, LibraryQuery } from '../../shared/query';
import { DAY_MS } from './days';
import type { ArchiveCtx } from './context';
import { parseQuery, timeBound } from './sql-query';
import { raw, sql, where } from './sql';
import {
  addAuthorsBetween,
  applyAuthorChanges,
  authorChanges,
  authorTablesExist,
  summaryAuthorRows,
  summaryTopAuthors,
  type AuthorOrder,
  type AuthorTotalsRow,
} from './author-summary';
import { dayNumber, dayOf, DROP, SCHEMA, TERM_KEYS, UNDATED } from './analysis-schema';

export { dayNumber, dayOf, UNDATED } from './analysis-schema';

/** rid, text, lang, published_at, views, likes, comments, shares, saves, platform, kind, labels JSON */
export type IndexItemRow = [
  number,
  string | null,
  string | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  string,
  string,
  string | null,
];
const ITEM_SQL = raw(
  'i.rid, i.text, i.lang, i.published_at, i.views, i.likes, i.comments, i.shares, i.saves, i.platform, i.kind, i.labels',
);

/** A changed item's counts before (o_…) and now, with its text, language and publication time before and now. */
export type DirtyRow = Record<string, unknown>;

/** One an_terms row as read (term, docs, occ, first, last, the six sums). */
export type TermTotalsRow = Record<string, number | null> & { term: string };

/** The plain filters the daily summary can answer (plainFilter), as clauses over an_daily. */
export interface PlainFilter {
  clauses: string[];
  params: unknown[];
}

export class AnalysisTables {
  constructor(private readonly c: ArchiveCtx) {}

  /** Whether the archive's connection is still open. */
  get open(): boolean {
    return this.c.db.open;
  }

  /**
   * `f` in one IMMEDIATE transaction (the index's writes take the write lock up front), quiet: the
   * index mirrors the items, so its upkeep leaves the archive's dataVersion (and the caches keyed
   * by it) as they were.
   */
  immediate<T>(f: () => T): T {
    return this.c.quiet(() => this.c.db.transaction(f).immediate());
  }

  /** Whether the index's tables exist. */
  exists(): boolean {
    return this.c.sql.get(sql`SELECT 1 FROM sqlite_master WHERE name = 'an_state'`) !== undefined;
  }

  state(k: string): number {
    return this.c.sql.get<{ v: number }>(sql`SELECT v FROM an_state WHERE k = ${k}`)?.v ?? 0;
  }

  setState(k: string, v: number): void {
    this.c.sql.run(sql`INSERT INTO an_state (k, v) VALUES (${k}, ${v}) ON CONFLICT (k) DO UPDATE SET v = excluded.v`);
  }

  /** Drops the tables (when they were written by another version) and creates what is missing. Call inside a transaction. */
  createSchema(dropFirst: boolean): void {
    if (dropFirst) this.c.db.exec(DROP);
    if (this.olderTrigger()) this.c.db.exec('DROP TRIGGER an_items_changed'); // made again below
    this.c.db.exec(SCHEMA);
    if (this.state('terms_bulk') !== 1) for (const [, q] of TERM_KEYS) this.c.db.exec(q);
  }

  /** Whether the change trigger is an older Loupe's (before it followed the terms' watermark, the network and the kind). */
  olderTrigger(): boolean {
    const q = sql`SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'an_items_changed' AND sql NOT LIKE '%terms_upto%'`;
    return this.c.sql.get(q) !== undefined;
  }

  /** Drops the terms `ids` (a build from scratch's terms whose items were all deleted meanwhile). */
  dropTerms(ids: number[]): void {
    this.c.sql.run(sql`DELETE FROM an_terms WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
  }

  /** Drops an_terms's indexes (a build from scratch appends the rows without them). Call inside a transaction. */
  dropTermKeys(): void {
    this.c.db.exec('DROP INDEX IF EXISTS an_terms_key; DROP INDEX IF EXISTS an_terms_multi');
  }

  /** Makes the next missing index of an_terms (one sort: one a transaction holds the lock for one); false when none was missing. */
  createTermKey(): boolean {
    const next = TERM_KEYS.find(
      ([name]) => this.c.sql.get(sql`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ${name}`) === undefined,
    );
    if (next) this.c.db.exec(next[1]);
    return next !== undefined;
  }

  /** Whether an_terms and an_item_terms hold no row. */
  termsEmpty(): boolean {
    return this.c.sql.get(sql`SELECT 1 WHERE EXISTS (SELECT 1 FROM an_terms) OR EXISTS (SELECT 1 FROM an_item_terms)`) === undefined;
  }

  /** The largest an_terms id (0 when none). */
  maxTermId(): number {
    return this.c.sql.get<{ m: number | null }>(sql`SELECT max(id) AS m FROM an_terms`)?.m ?? 0;
  }

  /** Calls `each` with every an_terms row's id, field and term, from `after` on (id order). */
  eachTerm(after: number, each: (id: number, field: number, term: string) => void): void {
    for (const r of this.c.sql.iterateRows<[number, number, string]>(
      sql`SELECT id, field, term FROM an_terms WHERE id > ${after} ORDER BY id`,
    ))
      each(r[0], r[1], r[2]);
  }

  /**
   * Appends new terms (ids `first`, `first` + 1, … of `terms`, one field) with no totals yet: a
   * bulk build's rows, in id order. One statement through json_each for a batch of well-formed
   * terms without NUL; otherwise a row each, bound as the incremental path binds them (a lone
   * surrogate is stored as the driver writes it).
   */
  appendTerms(field: number, first: number, terms: readonly string[]): void {
    const json = JSON.stringify(terms);
    if (!json.includes('\\u')) {
      this.c.sql.run(
        sql`INSERT INTO an_terms (id, field, term, docs, occ) SELECT ${first} + key, ${field}, value, 0, 0 FROM json_each(${json})`,
      );
      return;
    }
    const st = this.c.sql.of(sql`INSERT INTO an_terms (id, field, term, docs, occ) VALUES (${0}, ${0}, ${''}, 0, 0)`).st;
    for (let k = 0; k < terms.length; k++) st.run(first + k, field, terms[k]);
  }

  /** The id of a stored term among `ids` (a bulk build's terms whose text did not read back as it was written), if any. */
  termAmong(ids: number[], field: number, term: string): number | undefined {
    return this.c.sql.value<number>(
      sql`SELECT id FROM an_terms WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) AND field = ${field} AND term = ${term}`,
    );
  }

  /** A writer of whole totals by id (docs, occ, first, last, then the six sums in SUM_COLUMNS order; null: none known), in id order. */
  termTotalsSetter(): (
    id: number,
    docs: number,
    occ: number,
    first: number | null,
    last: number | null,
    sums: Array<number | null>,
  ) => void {
    const $ = 0;
    const st = this.c.sql.of(
      sql`UPDATE an_terms SET docs = ${$}, occ = ${$}, first = ${$}, last = ${$}, views = ${$}, likes = ${$}, comments = ${$}, shares = ${$},
            saves = ${$}, engagement = ${$} WHERE id = ${$}`,
    ).st;
    return (id, docs, occ, first, last, s) => void st.run(docs, occ, first, last, s[0], s[1], s[2], s[3], s[4], s[5], id);
  }

  /** an_item_terms's blobs in key order, `limit` after the key (field, day, rid) `after` (null: from the first): [field, day, rid, data] rows. */
  itemTermsPage(after: [number, number, number] | null, limit: number): Array<[number, number, number, Buffer]> {
    return after === null
      ? this.c.sql.rows(sql`SELECT field, day, rid, data FROM an_item_terms ORDER BY field, day, rid LIMIT ${limit}`)
      : this.c.sql.rows(
          sql`SELECT field, day, rid, data FROM an_item_terms WHERE (field, day, rid) > (${after[0]}, ${after[1]}, ${after[2]})
              ORDER BY field, day, rid LIMIT ${limit}`,
        );
  }

  maxRid(): number {
    return this.c.sql.get<{ m: number | null }>(sql`SELECT max(rid) AS m FROM items`)?.m ?? 0;
  }

  itemCount(): number {
    return this.c.sql.one<{ n: number }>(sql`SELECT count(*) AS n FROM items`).n;
  }

  /** Whether the author summary's tables exist (author-summary.ts). */
  authorTablesExist(): boolean {
    return authorTablesExist(this.c);
  }

  /** Items changed or deleted since the author summary took them in. */
  authorChanges(): number {
    return authorChanges(this.c);
  }

  /** Replays the author summary's logged changes. Call inside a transaction. */
  applyAuthorChanges(): void {
    applyAuthorChanges(this.c, dayOf);
  }

  /** Adds the items from < rid ≤ to to the author summary. Call inside a transaction. */
  addAuthorsBetween(from: number, to: number): void {
    addAuthorsBetween(this.c, from, to, dayOf);
  }

  /** The top n authors of a query from the author summary (`p`: its plain filter). */
  topAuthors(q: LibraryQuery, p: PlainFilter, n: number): AuthorCount[] {
    return summaryTopAuthors(this.c, q, p.clauses, p.params, n);
  }

  /** The top authors of a frequency table over a plain filter from the author summary (no names), and how many there are. */
  authorRows(q: LibraryQuery, p: PlainFilter, order: AuthorOrder): { distinct: number; rows: AuthorTotalsRow[] } {
    return summaryAuthorRows(this.c, q, p.clauses, p.params, order);
  }

  /** Whether any change to an indexed item waits (an_dirty, an_dirty_days). */
  hasChanges(): boolean {
    return (
      this.c.sql.get(sql`SELECT 1 FROM an_dirty LIMIT 1`) !== undefined ||
      this.c.sql.get(sql`SELECT 1 FROM an_dirty_days LIMIT 1`) !== undefined
    );
  }

  /** Changed items + 1000 per day to recount (the backlog's weight of the change logs). */
  changeWeight(): number {
    return this.c.sql.one<{ n: number }>(sql`SELECT (SELECT count(*) FROM an_dirty) + 1000 * (SELECT count(*) FROM an_dirty_days) AS n`).n;
  }

  /** The changed items, their logged counts (o_…) beside the current ones; `gone` 1 for a deleted one. */
  dirtyItems(): DirtyRow[] {
    return this.c.sql.all<DirtyRow>(
      sql`SELECT d.rid AS rid, d.text AS o_text, d.lang AS o_lang, d.published_at AS o_pub, d.views AS o_views, d.likes AS o_likes,
             d.comments AS o_comments, d.shares AS o_shares, d.saves AS o_saves, i.text AS text, i.lang AS lang, i.published_at AS pub,
             i.views AS views, i.likes AS likes, i.comments AS comments, i.shares AS shares, i.saves AS saves, i.rid IS NULL AS gone
           FROM an_dirty d LEFT JOIN items i ON i.rid = d.rid`,
    );
  }

  clearDirtyItems(): void {
    this.c.db.exec('DELETE FROM an_dirty');
  }

  /** The days to recount (UNDATED for undated items). */
  dirtyDays(): number[] {
    return this.c.sql.values<number>(sql`SELECT day FROM an_dirty_days`);
  }

  clearDirtyDays(): void {
    this.c.db.exec('DELETE FROM an_dirty_days');
  }

  /** Forgets a day's label and volume counts (ff ≥ 0). */
  clearDay(day: number): void {
    this.c.sql.run(sql`DELETE FROM an_daily WHERE day = ${day} AND ff >= 0`);
  }

  /** The indexed items (rid ≤ watermark) published on one day (UNDATED: undated items). */
  dayItems(day: number, watermark: number): IndexItemRow[] {
    return day === UNDATED
      ? this.c.sql.rows<IndexItemRow>(sql`SELECT ${ITEM_SQL} FROM items i WHERE i.published_at IS NULL AND i.rid <= ${watermark}`)
      : this.c.sql.rows<IndexItemRow>(
          sql`SELECT ${ITEM_SQL} FROM items i
              WHERE i.published_at >= ${day * DAY_MS} AND i.published_at < ${(day + 1) * DAY_MS} AND i.rid <= ${watermark}`,
        );
  }

  /** Items with from < rid ≤ to, in rid order. */
  itemsBetween(from: number, to: number): IndexItemRow[] {
    return this.c.sql.rows<IndexItemRow>(sql`SELECT ${ITEM_SQL} FROM items i WHERE i.rid > ${from} AND i.rid <= ${to} ORDER BY i.rid`);
  }

  /** Empties the term totals and the term ids per item (rebuilt from the items). */
  clearTerms(): void {
    this.c.db.exec('DELETE FROM an_terms; DELETE FROM an_item_terms');
  }

  /** label_fields rows: ff ↔ (family, field). */
  labelFields(): Array<{ ff: number; family: string; field: string }> {
    return this.c.sql.all(sql`SELECT ff, family, field FROM label_fields`);
  }

  /**
   * A writer of term totals: adds to a term's totals (a new term is inserted; `sums` in
   * SUM_COLUMNS order) and returns its row id. One statement of each kind for all the rows it
   * writes: a new term is one INSERT; a stored one a failed INSERT, its id, and an UPDATE by id
   * (an upsert with RETURNING cost ~30 % more a term, issue 30).
   */
  termWriter(): (
    field: number,
    term: string,
    docs: number,
    occ: number,
    first: number | null,
    last: number | null,
    sums: Array<number | null>,
  ) => number {
    // prepared once each (`of`: a template's statement, bound per term in its values' order): a
    // new term is one INSERT (OR IGNORE: one probe of the (field, term) key, the common case); a
    // stored one is added to by id, each value bound twice (better-sqlite3 takes no numbered `?N`;
    // a null adds nothing)
    const $ = 0;
    const ins = this.c.sql.of(
      sql`INSERT OR IGNORE INTO an_terms (field, term, docs, occ, first, last, views, likes, comments, shares, saves, engagement)
          VALUES (${$}, ${$}, ${$}, ${$}, ${$}, ${$}, ${$}, ${$}, ${$}, ${$}, ${$}, ${$})`,
    ).st;
    const id = this.c.sql.of(sql`SELECT id FROM an_terms WHERE field = ${$} AND term = ${$}`).st.pluck();
    const add = this.c.sql.of(
      sql`UPDATE an_terms SET docs = docs + ${$}, occ = occ + ${$},
            first = CASE WHEN first IS NULL OR ${$} < first THEN ${$} ELSE first END,
            last = CASE WHEN last IS NULL OR ${$} > last THEN ${$} ELSE last END,
            views = CASE WHEN ${$} IS NULL THEN views ELSE coalesce(views, 0) + ${$} END,
            likes = CASE WHEN ${$} IS NULL THEN likes ELSE coalesce(likes, 0) + ${$} END,
            comments = CASE WHEN ${$} IS NULL THEN comments ELSE coalesce(comments, 0) + ${$} END,
            shares = CASE WHEN ${$} IS NULL THEN shares ELSE coalesce(shares, 0) + ${$} END,
            saves = CASE WHEN ${$} IS NULL THEN saves ELSE coalesce(saves, 0) + ${$} END,
            engagement = CASE WHEN ${$} IS NULL THEN engagement ELSE coalesce(engagement, 0) + ${$} END
          WHERE id = ${$}`,
    ).st;
    return (field, term, docs, occ, first, last, s) => {
      const r = ins.run(field, term, docs, occ, first, last, s[0], s[1], s[2], s[3], s[4], s[5]);
      if (r.changes === 1) return Number(r.lastInsertRowid);
      const at = id.get(field, term) as number;
      add.run(docs, occ, first, first, last, last, s[0], s[0], s[1], s[1], s[2], s[2], s[3], s[3], s[4], s[4], s[5], s[5], at);
      return at;
    };
  }

  /** A writer of an item's terms of one field (a blob, term-ids.ts encodeItemTerms), filed under the UTC day of its publication time `pub`. */
  itemTermsWriter(): (field: number, rid: number, pub: number | null, data: Buffer) => void {
    // the day from JS (dayNumber): the same number dayOf computes in SQL, without binding the time five times
    const st = this.c.sql.of(sql`INSERT OR REPLACE INTO an_item_terms (field, day, rid, data) VALUES (${0}, ${0}, ${0}, ${0})`).st;
    return (field, rid, pub, data) => void st.run(field, dayNumber(pub), rid, data);
  }

  /** Drops an item's terms blob of one field (a deleted item, published `pub`). */
  dropItemTerms(field: number, rid: number, pub: number | null): void {
    this.c.sql.run(sql`DELETE FROM an_item_terms WHERE field = ${field} AND day = ${dayNumber(pub)} AND rid = ${rid}`);
  }

  /** A reader of an indexed item's terms blob of one field (published `pub`), for its new counts. */
  itemTermsReader(): (field: number, rid: number, pub: number | null) => Buffer | undefined {
    return (field, rid, pub) =>
      this.c.sql.value<Buffer>(sql`SELECT data FROM an_item_terms WHERE field = ${field} AND day = ${dayNumber(pub)} AND rid = ${rid}`);
  }

  /** The label overrides of the items lo ≤ rid ≤ hi (value as JSON text). */
  overridesBetween(lo: number, hi: number): Array<{ rid: number; family: string; field: string; value: string }> {
    return this.c.sql.all(sql`SELECT item_rid AS rid, family, field, value FROM label_overrides WHERE item_rid BETWEEN ${lo} AND ${hi}`);
  }

  /** A writer of daily counts: adds n items to (ff, day, platform, kind, value). */
  dailyWriter(): (ff: number, day: number, platform: string, kind: string, value: unknown, n: number) => void {
    return (ff, day, platform, kind, value, n) =>
      void this.c.sql.insert`an_daily ON CONFLICT DO UPDATE SET n = n + excluded.n`({ ff, day, platform, kind, value, n });
  }

  /** The top `limit` terms of a field by a totals column (`count` = items, `occurrences`, first, last or a sum; unknown values last). */
  topTerms(field: number, sort: string, dir: 'asc' | 'desc', limit: number): TermTotalsRow[] {
    const col = sort === 'count' ? 'docs' : sort === 'occurrences' ? 'occ' : sort;
    const cols = raw('term, docs, occ, first, last, views, likes, comments, shares, saves, engagement');
    const way = raw(dir === 'asc' ? 'ASC' : 'DESC');
    if (col !== 'docs')
      return this.c.sql.all<TermTotalsRow>(
        sql`SELECT ${cols} FROM an_terms WHERE field = ${field} AND docs > 0 ORDER BY ${raw(col)} IS NULL, ${raw(col)} ${way}, docs DESC, term LIMIT ${limit}`,
      );
    // by items (never null), then term: the terms in more than one item from an_terms_multi (a
    // partial index: most terms are in one item, and a new one's insert does not touch it), the
    // ones in exactly one item by term from the (field, term) key — after them (descending) or
    // before them (ascending)
    const multi = (n: number): TermTotalsRow[] =>
      this.c.sql.all<TermTotalsRow>(
        sql`SELECT ${cols} FROM an_terms WHERE field = ${field} AND docs > 1 ORDER BY docs ${way}, term LIMIT ${n}`,
      );
    const single = (n: number): TermTotalsRow[] =>
      this.c.sql.all<TermTotalsRow>(sql`SELECT ${cols} FROM an_terms WHERE field = ${field} AND docs = 1 ORDER BY term LIMIT ${n}`);
    const head = dir === 'desc' ? multi(limit) : single(limit);
    if (head.length >= limit) return head;
    return head.concat(dir === 'desc' ? single(limit - head.length) : multi(limit - head.length));
  }

  /** The plain filters the daily summary can answer: platforms, kinds, and dates on UTC day boundaries; else null. */
  plainFilter(q: LibraryQuery): PlainFilter | null {
    const { sort: _s, limit: _l, after: _a, platforms, kinds, since, until, ...rest } = parseQuery(q);
    if (Object.values(rest).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0))) return null;
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (since !== undefined || until !== undefined) clauses.push(`day <> ${UNDATED}`);
    for (const [v, end, op] of [
      [since, false, '>='],
      [until, true, '<'],
    ] as const) {
      if (v === undefined) continue;
      const t = timeBound(v, end);
      if (t % DAY_MS !== 0) return null;
      clauses.push(`day ${op} ?`);
      params.push(t / DAY_MS);
    }
    if (platforms?.length) {
      clauses.push(`platform IN (${platforms.map(() => '?').join(', ')})`);
      params.push(...platforms);
    }
    if (kinds?.length) {
      clauses.push(`kind IN (${kinds.map(() => '?').join(', ')})`);
      params.push(...kinds);
    }
    return { clauses, params };
  }

  /** Dated items per (day, platform) — ff 0 — or per (day, definite value) of one label field, over a plain filter. */
  dailyRows(p: PlainFilter, ff: number, by: 'platform' | 'label'): Array<{ d: number; k: string | number; c: number }> {
    if (by === 'platform')
      return this.c.sql.all<{ d: number; k: string; c: number }>(
        sql`SELECT day AS d, platform AS k, sum(n) AS c FROM an_daily WHERE ff = ${ff} AND day <> ${UNDATED} AND ${where(p)}
            GROUP BY day, platform`,
      );
    return this.c.sql.all<{ d: number; k: string | number; c: number }>(
      sql`SELECT day AS d, value AS k, sum(n) AS c FROM an_daily WHERE ff = ${ff} AND day <> ${UNDATED} AND ${where(p)} AND value < x''
          GROUP BY day, value`,
    );
  }

  /** A label field's value groups (value, typeof, items) over a plain filter. */
  labelGroups(p: PlainFilter, ff: number): Array<{ v: string | number | bigint | Buffer; t: string; c: number }> {
    return this.c.sql.all<{ v: string | number | bigint | Buffer; t: string; c: number }>(
      sql`SELECT value AS v, typeof(value) AS t, sum(n) AS c FROM an_daily WHERE ff = ${ff} AND ${where(p)} GROUP BY value`,
    );
  }
}
