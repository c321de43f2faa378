/**
 * The analysis index (docs/analysis.md "The analysis index"): tables derived from the items and
 * kept off the ingest path, brought up to date before an analysis reads them.
 *
 *  - `an_terms`: archive-wide totals per text term (hashtags, mentions, domains, emoji, words,
 *    bigrams): items, occurrences, first/last publication, engagement sums. Whole-archive
 *    frequency tables read their top N through `an_terms_docs`.
 *  - `an_daily`: items per (label field, UTC day, platform, kind, value) — reals in 0..1 to their
 *    hundredth, which every chart bucket (tenths) is a union of — and per (day, platform, kind)
 *    (ff 0). Label shares, volume by platform or label over plain filters (platforms, kinds,
 *    dates on day boundaries) sum these rows instead of reading every item.
 *
 * Maintenance: new items are found by rid (everything above `watermark`); a change to an indexed
 * item (a re-fetch's merge, an analyst's label override) is logged by triggers: its old counts in
 * `an_dirty` (the engagement sums are moved by the difference), its days in `an_dirty_days`
 * (recounted from the items). A changed text, language or publication time of an indexed item
 * marks the term totals stale; they are then rebuilt. The tables are created on first use (a
 * derived cache: dropping them loses nothing) and rebuilt when INDEX_VERSION changes.
 */
import type { Archive } from '../archive';
import type { Db } from '../archive/db';
import { flattenLabels, type Json, type LabelScalar } from '../archive/extract';
import { parseQuery, timeBound } from '../archive/sql-query';
import { engagementOf } from '../../shared/analysis';
import type { LibraryQuery } from '../../shared/query';
import { DAY_MS } from './buckets';
import type { DayRow } from './charts';
import { addItem, newAcc, type TermAcc } from './frequency';
import { encodeIds, tableFromIds } from './term-ids';
import { extractTerms, type TermField } from './terms';
import { analysisConnection } from '../archive/analysis-connection';

/** 2: term ids per item (an_item_terms), an_terms rows keyed by an id */
export const INDEX_VERSION = 2;
/** text fields with archive-wide totals (trigrams are counted from the items) */
export const TOTAL_FIELDS = ['hashtags', 'mentions', 'domains', 'emoji', 'words', 'bigrams'] as const satisfies readonly TermField[];
const FIELD_NO: Record<string, number> = Object.fromEntries(TOTAL_FIELDS.map((f, k) => [f, k + 1]));
const CHUNK = 20_000;
/** the largest backlog a read takes in before answering (~0.1 s); more is built in the background */
export const SYNC_BUDGET = 5_000;

/** the day number undated items are summarised under (no date filter reaches it) */
export const UNDATED = -999_999_999;
const DAY = `coalesce((x - ((x % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS}) / ${DAY_MS}, ${UNDATED})`;
const dayOf = (col: string): string => DAY.replace(/x/g, col);

const SCHEMA = /* sql */ `
CREATE TABLE IF NOT EXISTS an_state (k TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS an_terms (
  id INTEGER PRIMARY KEY, field INTEGER NOT NULL, term TEXT NOT NULL, docs INTEGER NOT NULL, occ INTEGER NOT NULL, first INTEGER, last INTEGER,
  views INTEGER, likes INTEGER, comments INTEGER, shares INTEGER, saves INTEGER, engagement INTEGER,
  UNIQUE (field, term));
CREATE INDEX IF NOT EXISTS an_terms_docs ON an_terms (field, docs);
CREATE TABLE IF NOT EXISTS an_item_terms (field INTEGER NOT NULL, rid INTEGER NOT NULL, ids BLOB NOT NULL, PRIMARY KEY (field, rid)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS an_daily (
  ff INTEGER NOT NULL, day INTEGER NOT NULL, platform TEXT NOT NULL, kind TEXT NOT NULL, value ANY NOT NULL, n INTEGER NOT NULL,
  PRIMARY KEY (ff, day, platform, kind, value)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS an_dirty (rid INTEGER PRIMARY KEY, text TEXT, lang TEXT, published_at INTEGER,
  views INTEGER, likes INTEGER, comments INTEGER, shares INTEGER, saves INTEGER);
CREATE TABLE IF NOT EXISTS an_dirty_days (day INTEGER PRIMARY KEY);
CREATE TRIGGER IF NOT EXISTS an_items_changed AFTER UPDATE OF text, lang, published_at, views, likes, comments, shares, saves, labels ON items
  WHEN old.rid <= (SELECT v FROM an_state WHERE k = 'watermark') AND (old.text IS NOT new.text OR old.lang IS NOT new.lang
    OR old.published_at IS NOT new.published_at OR old.views IS NOT new.views OR old.likes IS NOT new.likes OR old.comments IS NOT new.comments
    OR old.shares IS NOT new.shares OR old.saves IS NOT new.saves OR old.labels IS NOT new.labels)
BEGIN
  INSERT OR IGNORE INTO an_dirty VALUES (old.rid, old.text, old.lang, old.published_at, old.views, old.likes, old.comments, old.shares, old.saves);
  INSERT OR IGNORE INTO an_dirty_days VALUES (${dayOf('old.published_at')});
  INSERT OR IGNORE INTO an_dirty_days VALUES (${dayOf('new.published_at')});
END;
CREATE TRIGGER IF NOT EXISTS an_override_ins AFTER INSERT ON label_overrides BEGIN
  INSERT OR IGNORE INTO an_dirty_days SELECT ${dayOf('published_at')} FROM items WHERE rid = new.item_rid;
END;
CREATE TRIGGER IF NOT EXISTS an_override_upd AFTER UPDATE ON label_overrides BEGIN
  INSERT OR IGNORE INTO an_dirty_days SELECT ${dayOf('published_at')} FROM items WHERE rid = new.item_rid;
END;
CREATE TRIGGER IF NOT EXISTS an_override_del AFTER DELETE ON label_overrides BEGIN
  INSERT OR IGNORE INTO an_dirty_days SELECT ${dayOf('published_at')} FROM items WHERE rid = old.item_rid;
END;
`;

const DROP = /* sql */ `
DROP TRIGGER IF EXISTS an_items_changed; DROP TRIGGER IF EXISTS an_override_ins; DROP TRIGGER IF EXISTS an_override_upd;
DROP TRIGGER IF EXISTS an_override_del; DROP TABLE IF EXISTS an_terms; DROP TABLE IF EXISTS an_item_terms; DROP TABLE IF EXISTS an_daily; DROP TABLE IF EXISTS an_dirty;
DROP TABLE IF EXISTS an_dirty_days; DROP TABLE IF EXISTS an_state;`;

/** (field number, item rid, the item's term keys of that field in text order) */
type ItemTerms = [number, number, string[]];
type ItemTuple = [number, string | null, string | null, number | null, number | null, number | null, number | null, number | null, number | null, string, string, string | null];
const ITEM_SQL = 'i.rid, i.text, i.lang, i.published_at, i.views, i.likes, i.comments, i.shares, i.saves, i.platform, i.kind, i.labels';

/** A label value as the daily summary groups it: reals in 0..1 to their hundredth (floor), others as stored. */
export function dailyValue(v: LabelScalar): LabelScalar {
  if (typeof v === 'number' && !Number.isInteger(v) && v >= 0 && v <= 1) return Math.trunc(Math.round(v * 100 * 1e8) / 1e8) / 100;
  return v;
}

export class AnalysisIndex {
  private readonly db: Db;
  private ready = false;

  constructor(private readonly archive: Archive) {
    this.db = analysisConnection(archive);
    archive.labelGroupsSource = (q, family, field) => this.labelGroups(q, family, field);
  }

  /** Whether this connection may write the index (a read-only archive answers from the items). */
  private writable(): boolean {
    return !this.archive.readonly;
  }

  private state(k: string): number {
    return (this.db.prepare('SELECT v FROM an_state WHERE k = ?').get(k) as { v: number } | undefined)?.v ?? 0;
  }

  private setState(k: string, v: number): void {
    this.db.prepare('INSERT INTO an_state (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v').run(k, v);
  }

  private ensureSchema(): void {
    if (this.ready) return;
    const exists = this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'an_state'").get() !== undefined;
    this.db.transaction(() => {
      if (exists && this.state('version') !== INDEX_VERSION) this.db.exec(DROP);
      this.db.exec(SCHEMA);
      this.setState('version', INDEX_VERSION);
    }).immediate();
    this.ready = true;
  }

  /** Whether everything archived is in the index (nothing new, nothing changed). */
  current(): boolean {
    if (this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'an_state'").get() === undefined) return false;
    const max = (this.db.prepare('SELECT max(rid) AS m FROM items').get() as { m: number | null }).m ?? 0;
    return (
      this.state('version') === INDEX_VERSION &&
      this.state('watermark') >= max &&
      this.state('terms_stale') === 0 &&
      this.db.prepare('SELECT 1 FROM an_dirty LIMIT 1').get() === undefined &&
      this.db.prepare('SELECT 1 FROM an_dirty_days LIMIT 1').get() === undefined
    );
  }

  /** Items (new or changed) the index has yet to take in. */
  backlog(): number {
    if (this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'an_state'").get() === undefined || this.state('version') !== INDEX_VERSION)
      return (this.db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;
    const max = (this.db.prepare('SELECT max(rid) AS m FROM items').get() as { m: number | null }).m ?? 0;
    const from = this.state('terms_stale') === 1 ? 0 : Math.min(this.state('watermark'), this.state('terms_upto'));
    const dirty = (this.db.prepare('SELECT (SELECT count(*) FROM an_dirty) + 1000 * (SELECT count(*) FROM an_dirty_days) AS n').get() as { n: number }).n;
    return Math.max(0, max - from) + dirty;
  }

  private warming: Promise<void> | null = null;

  /** Builds the index in the background, one chunk at a time, yielding between chunks. */
  warm(): Promise<void> {
    this.warming ??= (async () => {
      try {
        while (this.db.open && !this.current() && this.writable()) {
          this.catchUpNow(CHUNK);
          await new Promise((r) => setImmediate(r));
        }
      } catch {
        // a busy or closed archive: the next read retries
      } finally {
        this.warming = null;
      }
    })();
    return this.warming;
  }

  /**
   * Brings the index up to date when at most `budget` items wait (default: what a read can
   * afford, SYNC_BUDGET); a larger backlog is built in the background (warm) and false returned,
   * as it is when the index cannot be written: callers then read the items.
   */
  catchUp(budget = SYNC_BUDGET): boolean {
    if (this.current()) return true;
    if (!this.writable()) return false;
    if (this.backlog() > budget) {
      void this.warm();
      return false;
    }
    return this.catchUpNow(budget);
  }

  private catchUpNow(budget: number): boolean {
    this.ensureSchema();
    const fields = this.fieldIds();
    // changes to indexed items first (they concern rids at or below the watermark)
    this.db.transaction(() => {
      const wm = this.state('watermark');
      const dirty = this.db
        .prepare(
          `SELECT d.rid AS rid, d.text AS o_text, d.lang AS o_lang, d.published_at AS o_pub, d.views AS o_views, d.likes AS o_likes,
             d.comments AS o_comments, d.shares AS o_shares, d.saves AS o_saves, i.text AS text, i.lang AS lang, i.published_at AS pub,
             i.views AS views, i.likes AS likes, i.comments AS comments, i.shares AS shares, i.saves AS saves
           FROM an_dirty d JOIN items i ON i.rid = d.rid`,
        )
        .all() as Array<Record<string, unknown>>;
      const delta = new Map<string, TermAcc>();
      for (const d of dirty) {
        if ((d.rid as number) > wm || this.state('terms_stale') === 1) continue;
        if (d.text !== d.o_text || d.lang !== d.o_lang || d.pub !== d.o_pub) {
          this.setState('terms_stale', 1);
          continue;
        }
        this.addDelta(delta, d);
      }
      if (this.state('terms_stale') === 0) this.writeTerms(delta, true);
      this.db.exec('DELETE FROM an_dirty');
      const days = (this.db.prepare('SELECT day FROM an_dirty_days').pluck().all() as number[]).filter((d) => Number.isFinite(d));
      for (const day of days) {
        this.db.prepare('DELETE FROM an_daily WHERE day = ? AND ff >= 0').run(day);
        const rows = (
          day === UNDATED
            ? this.db.prepare(`SELECT ${ITEM_SQL} FROM items i WHERE i.published_at IS NULL AND i.rid <= ?`).raw(true).all(wm)
            : this.db.prepare(`SELECT ${ITEM_SQL} FROM items i WHERE i.published_at >= ? AND i.published_at < ? AND i.rid <= ?`).raw(true).all(day * DAY_MS, (day + 1) * DAY_MS, wm)
        ) as ItemTuple[];
        this.writeDaily(this.dailyOf(rows, fields));
      }
      this.db.exec('DELETE FROM an_dirty_days');
    }).immediate();
    if (this.state('terms_stale') === 1) {
      this.db.transaction(() => {
        this.db.exec('DELETE FROM an_terms; DELETE FROM an_item_terms');
        this.setState('terms_upto', 0);
        this.setState('terms_stale', 0);
      }).immediate();
    }
    // new items, in chunks (one transaction each: other writers get the lock in between)
    const max = (this.db.prepare('SELECT max(rid) AS m FROM items').get() as { m: number | null }).m ?? 0;
    const chunk = this.db.prepare(`SELECT ${ITEM_SQL} FROM items i WHERE i.rid > ? AND i.rid <= ? ORDER BY i.rid`).raw(true);
    for (let done = 0; ; done += CHUNK) {
      const wm = this.state('watermark');
      const termsUpto = this.state('terms_upto');
      const from = Math.min(wm, termsUpto);
      if (from >= max) break;
      if (done >= budget) return false;
      const to = Math.min(max, from + CHUNK);
      const rows = chunk.all(from, to) as ItemTuple[];
      this.db.transaction(() => {
        const acc = new Map<string, TermAcc>();
        const perItem: ItemTerms[] = [];
        for (const r of rows) if (r[0] > termsUpto) this.addTerms(acc, r, perItem);
        this.writeItemTerms(perItem, this.writeTerms(acc, false));
        this.writeDaily(this.dailyOf(rows.filter((r) => r[0] > wm), fields));
        this.setState('terms_upto', Math.max(termsUpto, to));
        this.setState('watermark', Math.max(wm, to));
      }).immediate();
    }
    return true;
  }

  /** label_fields ids by family\0field */
  private fieldIds(): Map<string, number> {
    const m = new Map<string, number>();
    for (const r of this.db.prepare('SELECT ff, family, field FROM label_fields').all() as Array<{ ff: number; family: string; field: string }>)
      m.set(r.family + '\u0000' + r.field, r.ff);
    return m;
  }

  private addTerms(acc: Map<string, TermAcc>, r: ItemTuple, perItem: ItemTerms[]): void {
    if (r[1] === null) return;
    const terms = extractTerms(r[1], r[2], TOTAL_FIELDS);
    const vals = [r[4], r[5], r[6], r[7], r[8], engagementOf({ likes: r[5], comments: r[6], shares: r[7], saves: r[8] })];
    for (const f of TOTAL_FIELDS) {
      const list = terms[f];
      if (list.length === 0) continue;
      const per = new Map<string, number>();
      for (const t of list) per.set(t, (per.get(t) ?? 0) + 1);
      perItem.push([FIELD_NO[f], r[0], list.map((t) => FIELD_NO[f] + '\u0000' + t)]);
      for (const [t, n] of per) {
        const key = FIELD_NO[f] + '\u0000' + t;
        let a = acc.get(key);
        if (!a) acc.set(key, (a = newAcc()));
        addItem(a, n, r[3], vals);
      }
    }
  }

  /** The engagement difference of a changed item (same text): docs and occurrences unchanged. */
  private addDelta(acc: Map<string, TermAcc>, d: Record<string, unknown>): void {
    const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
    const cols = ['views', 'likes', 'comments', 'shares', 'saves'];
    const now = cols.map((c) => num(d[c]));
    const was = cols.map((c) => num(d[`o_${c}`]));
    const e = (x: Array<number | null>): number | null => engagementOf({ likes: x[1], comments: x[2], shares: x[3], saves: x[4] });
    const diff = [...now.map((v, k) => (v === null ? null : v - (was[k] ?? 0))), e(now) === null ? null : (e(now) ?? 0) - (e(was) ?? 0)];
    const terms = extractTerms(d.text as string | null, d.lang as string | null, TOTAL_FIELDS);
    for (const f of TOTAL_FIELDS)
      for (const t of new Set(terms[f])) {
        const key = FIELD_NO[f] + '\u0000' + t;
        let a = acc.get(key);
        if (!a) acc.set(key, (a = newAcc()));
        a.sums = a.sums.map((s, k) => (diff[k] === null ? s : (s ?? 0) + (diff[k] as number)));
      }
  }

  /** Upserts the terms' totals; returns each key's row id. */
  private writeTerms(acc: Map<string, TermAcc>, deltaOnly: boolean): Map<string, number> {
    const ids = new Map<string, number>();
    const up = this.db.prepare(
      `INSERT INTO an_terms (field, term, docs, occ, first, last, views, likes, comments, shares, saves, engagement)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (field, term) DO UPDATE SET docs = docs + excluded.docs, occ = occ + excluded.occ,
         first = CASE WHEN first IS NULL OR excluded.first < first THEN excluded.first ELSE first END,
         last = CASE WHEN last IS NULL OR excluded.last > last THEN excluded.last ELSE last END,
         ${['views', 'likes', 'comments', 'shares', 'saves', 'engagement'].map((c) => `${c} = CASE WHEN excluded.${c} IS NULL THEN ${c} ELSE coalesce(${c}, 0) + excluded.${c} END`).join(', ')}
       RETURNING id`,
    ).pluck();
    for (const [key, a] of acc) {
      const sep = key.indexOf('\u0000');
      ids.set(key, up.get(Number(key.slice(0, sep)), key.slice(sep + 1), deltaOnly ? 0 : a.count, deltaOnly ? 0 : a.occ, deltaOnly ? null : a.first, deltaOnly ? null : a.last, ...a.sums) as number);
    }
    return ids;
  }

  /** Each new item's term ids per field (term-ids.ts reads them to count a query's items). */
  private writeItemTerms(perItem: ItemTerms[], ids: Map<string, number>): void {
    const put = this.db.prepare('INSERT OR REPLACE INTO an_item_terms (field, rid, ids) VALUES (?, ?, ?)');
    for (const [field, rid, keys] of perItem) put.run(field, rid, encodeIds(keys.map((k) => ids.get(k)!)));
  }

  private dailyOf(rows: ItemTuple[], fields: Map<string, number>): Map<string, [number, number, string, string, LabelScalar, number]> {
    const out = new Map<string, [number, number, string, string, LabelScalar, number]>();
    const bump = (ff: number, day: number, platform: string, kind: string, v: LabelScalar): void => {
      const key = `${ff}\u0000${day}\u0000${platform}\u0000${kind}\u0000${typeof v}\u0000${Buffer.isBuffer(v) ? '' : String(v)}`;
      const e = out.get(key);
      if (e) e[5]++;
      else out.set(key, [ff, day, platform, kind, v, 1]);
    };
    if (rows.length === 0) return out;
    const lo = rows[0][0];
    const hi = rows[rows.length - 1][0];
    const ov = new Map<number, Array<{ family: string; field: string; value: unknown }>>();
    for (const o of this.db
      .prepare('SELECT item_rid AS rid, family, field, value FROM label_overrides WHERE item_rid BETWEEN ? AND ?')
      .all(Math.min(lo, hi), Math.max(lo, hi)) as Array<{ rid: number; family: string; field: string; value: string }>)
      (ov.get(o.rid) ?? ov.set(o.rid, []).get(o.rid)!).push({ family: o.family, field: o.field, value: JSON.parse(o.value) as unknown });
    for (const r of rows) {
      const day = r[3] === null ? UNDATED : Math.floor(r[3] / DAY_MS);
      bump(0, day, r[9], r[10], '');
      const leaves = flattenLabels(r[11] === null ? null : (JSON.parse(r[11]) as Json), ov.get(r[0]));
      for (const [family, field, v] of leaves) {
        const ff = fields.get(family + '\u0000' + field);
        if (ff !== undefined) bump(ff, day, r[9], r[10], dailyValue(v));
      }
    }
    return out;
  }

  private writeDaily(rows: Map<string, [number, number, string, string, LabelScalar, number]>): void {
    const up = this.db.prepare('INSERT INTO an_daily (ff, day, platform, kind, value, n) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n');
    for (const r of rows.values()) up.run(...r);
  }

  // ───────── reading ─────────

  /** Archive-wide totals of one field, ranked in SQL (frequency.ts TotalsSource). */
  totals(field: TermField, sort: string, dir: 'asc' | 'desc', limit: number): { distinct: number | null; ranked: Array<[string, TermAcc]> } | null {
    const no = FIELD_NO[field];
    if (no === undefined || !this.catchUp()) return null;
    const col = sort === 'count' ? 'docs' : sort === 'occurrences' ? 'occ' : sort;
    // items (docs) is never null: ordered by it alone, the top N is read straight off an_terms_docs
    const order = col === 'docs' ? `docs ${dir === 'asc' ? 'ASC' : 'DESC'}, term` : `${col} IS NULL, ${col} ${dir === 'asc' ? 'ASC' : 'DESC'}, docs DESC, term`;
    const rows = this.db
      .prepare(`SELECT term, docs, occ, first, last, views, likes, comments, shares, saves, engagement FROM an_terms WHERE field = ? AND docs > 0 ORDER BY ${order} LIMIT ?`)
      .all(no, limit) as Array<Record<string, number | null> & { term: string }>;
    return {
      distinct: null,
      ranked: rows.map((r) => [
        r.term,
        { count: r.docs ?? 0, occ: r.occ ?? 0, first: r.first, last: r.last, sums: [r.views, r.likes, r.comments, r.shares, r.saves, r.engagement] },
      ]),
    };
  }

  /**
   * A field's table over the items a (non-empty) query matches, counted from the term ids kept
   * per item (term-ids.ts) when the index is current; else null (frequency.ts tokenizes the items).
   */
  counted(q: LibraryQuery, field: TermField, sort: string, dir: 'asc' | 'desc', limit: number): { distinct: number; ranked: Array<[string, TermAcc]> } | null {
    const no = FIELD_NO[field];
    if (no === undefined || !this.catchUp()) return null;
    return tableFromIds(this.db, q, no, sort, dir, limit);
  }

  /** The plain filters the daily summary can answer: platforms, kinds, and dates on UTC day boundaries. */
  private plain(q: LibraryQuery): { clauses: string[]; params: unknown[] } | null {
    const { sort: _s, limit: _l, after: _a, platforms, kinds, since, until, ...rest } = parseQuery(q);
    if (Object.values(rest).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0))) return null;
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (since !== undefined || until !== undefined) clauses.push(`day <> ${UNDATED}`);
    for (const [v, end, op] of [[since, false, '>='], [until, true, '<']] as const) {
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

  /** (day, key, items) rows of a chart from the daily summary (charts.ts ChartRowsSource). */
  dayRows(q: LibraryQuery, by: 'platform' | 'label', family?: string, field?: string): DayRow[] | null {
    const p = this.plain(q);
    if (p === null || !this.catchUp()) return null;
    const where = ['ff = ?', `day <> ${UNDATED}`, ...p.clauses].join(' AND ');
    if (by === 'platform') return this.db.prepare(`SELECT day AS d, platform AS k, sum(n) AS c FROM an_daily WHERE ${where} GROUP BY day, platform`).all(0, ...p.params) as DayRow[];
    const ff = this.fieldIds().get(`${family}\u0000${field}`);
    if (ff === undefined) return [];
    return this.db.prepare(`SELECT day AS d, value AS k, sum(n) AS c FROM an_daily WHERE ${where} AND value < x'' GROUP BY day, value`).all(ff, ...p.params) as DayRow[];
  }

  /** A label field's value groups (value, typeof, items) over a plain query, for Archive.labelDistribution. */
  labelGroups(q: LibraryQuery, family: string, field: string): Array<{ v: string | number | bigint | Buffer; t: string; c: number }> | null {
    const p = this.plain(q);
    if (p === null || !this.catchUp()) return null;
    const ff = this.fieldIds().get(`${family}\u0000${field}`);
    if (ff === undefined) return [];
    return this.db
      .prepare(`SELECT value AS v, typeof(value) AS t, sum(n) AS c FROM an_daily WHERE ${['ff = ?', ...p.clauses].join(' AND ')} GROUP BY value`)
      .all(ff, ...p.params) as Array<{ v: string | number | bigint | Buffer; t: string; c: number }>;
  }
}
