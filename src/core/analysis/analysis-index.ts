/**
 * The analysis index (docs/analysis.md "The analysis index"): tables derived from the items and
 * kept off the ingest path, brought up to date before an analysis reads them.
 *
 *  - `an_terms`: archive-wide totals per text term (hashtags, mentions, domains, emoji, words,
 *    bigrams): items, occurrences, first/last publication, engagement sums. Whole-archive
 *    frequency tables read their top N through `an_terms_multi` (archive/analysis-index.ts topTerms).
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
 * derived cache: dropping them loses nothing) and rebuilt when INDEX_VERSION changes. The tables
 * and their SQL are the archive's (src/core/archive/analysis-index.ts, `archive.analysisTables`);
 * this class computes what goes in them and reads them back.
 */
import { existsSync } from 'node:fs';
import type { Archive } from '../archive';
import { startIndexBuilder, type IndexBuilder } from './index-builder';
import type { AuthorCountRow } from '../archive';
import type { AnalysisTables, IndexItemRow } from '../archive';
import type { IndexStatus } from '../../shared/analysis';
import type { AuthorCount, LibraryQuery } from '../../shared/query';
import type { DayRow } from './charts';
import { BulkTerms, BULK_MIN } from './bulk-terms';
import { ChunkTerms } from './chunk-terms';
import { DailyAcc, writeDaily } from './daily-acc';
import type { TermAcc } from './frequency';
import { takeChanges } from './index-changes';
import { tableFromIds, writeItemTerms, type ItemIds } from './term-ids';
import { UpkeepGate } from './upkeep-gate';
import type { TermField } from '../text';

/**
 * 2: term ids per item (an_item_terms), an_terms rows keyed by an id; 3 (briefly): an_item_terms
 * keyed by (field, UTC day, rid) with each item's publication time and counts in columns; 4: the
 * same in one blob (term-ids.ts encodeItemTerms); 5: the same, with Japanese and Chinese words
 * segmented anew (terms.ts, issue 27 #10: the terms of such items changed); 6: an_terms's key an
 * index of its own (a build from scratch makes it at its end, bulk-terms.ts). Any other version is
 * dropped and built again (a version 2 was rewritten in place up to version 4).
 */
export const INDEX_VERSION = 6;
/** text fields with archive-wide totals (trigrams are counted from the items) */
export const TOTAL_FIELDS = ['hashtags', 'mentions', 'domains', 'emoji', 'words', 'bigrams'] as const satisfies readonly TermField[];
const FIELD_NO: Record<string, number> = Object.fromEntries(TOTAL_FIELDS.map((f, k) => [f, k + 1]));
const CHUNK = 20_000;
/** the author summary's chunk: no tokenizing, a few µs an item once its row is read */
const AUTHOR_CHUNK = 50_000;
/**
 * The background build's slice: about this long on the thread before it yields, so the app's
 * other work (IPC, the views' reads, a watch run) waits at most about this long. Tokenizing runs at
 * ~1,500–2,500 posts/s, so a fixed chunk of 20,000 held the thread ~10 s at a time.
 */
export const SLICE_MS = 1_000;
const MIN_SLICE_ITEMS = 100;
/** the largest backlog a read takes in before answering (up to ~2–3 s of tokenizing at ~2,000 posts/s); more is built in the background */
export const SYNC_BUDGET = 5_000;

/** The next background slice's size: scaled toward SLICE_MS from the last one's time (at most ×2 or ½ a step). */
export function nextSlice(items: number, ms: number, target = SLICE_MS): number {
  const f = Math.min(2, Math.max(0.5, target / Math.max(ms, 1)));
  return Math.max(MIN_SLICE_ITEMS, Math.min(CHUNK, Math.round(items * f)));
}

export class AnalysisIndex {
  private readonly t: AnalysisTables;
  private ready = false;
  private readonly bulk: BulkTerms;
  /** a build from scratch's daily counts held in memory across its slices (daily-acc.ts) */
  private daily: DailyAcc | null = null;
  /** a failed upkeep step's leftovers, and a read's upkeep on a full disk (upkeep-gate.ts) */
  private readonly gate = new UpkeepGate(
    () => this.archive.path,
    () => ((this.daily = null), this.bulk.reset()),
  );

  constructor(
    private readonly archive: Archive,
    /**
     * worker: build in a worker thread (the app); background false: never build behind a read —
     * a larger backlog than a read takes in is answered from the items and left for the app or
     * `loupe archive index` (a command-line process exits once its answer is out, issue 30); bulk:
     * a build from scratch's thresholds (tests): its least backlog, its totals' step, the daily rows it holds
     */
    private readonly opts: {
      worker?: boolean;
      nice?: number;
      background?: boolean;
      bulk?: { min?: number; step?: number; daily?: number };
    } = {},
  ) {
    this.t = archive.analysisTables;
    this.bulk = new BulkTerms(this.t, TOTAL_FIELDS, opts.bulk?.step);
    archive.labelGroupsSource = (q, family, field) => this.labelGroups(q, family, field);
    archive.dayCountsSource = (q) => this.dayRows(q, 'platform');
    archive.authorCountsSource = (q, n) => this.topAuthors(q, n);
  }

  /** Whether this connection may write the index (a read-only archive, or one on a full disk, answers from the items). */
  private writable(): boolean {
    return !this.archive.readonly && this.gate.open;
  }

  private state(k: string): number {
    return this.t.state(k);
  }

  private setState(k: string, v: number): void {
    this.t.setState(k, v);
  }

  private ensureSchema(): void {
    if (this.ready) return;
    const exists = this.t.exists();
    this.t.immediate(() => {
      const was = exists ? this.state('version') : INDEX_VERSION;
      // any older index is built again: its terms were segmented otherwise (a version 2 was once rewritten in place)
      this.t.createSchema(was !== INDEX_VERSION);
      this.setState('version', INDEX_VERSION);
    });
    this.ready = true;
  }

  /** An index an older Loupe made gets this one's triggers before it is read (once a process; nothing to write otherwise). */
  private upgrade(): void {
    if (!this.ready && this.writable() && this.t.exists() && this.t.olderTrigger()) this.ensureSchema();
  }

  /** Whether everything archived is in the index (nothing new, nothing changed). */
  current(): boolean {
    if (!this.t.exists()) return false;
    const max = this.t.maxRid();
    return (
      this.state('version') === INDEX_VERSION &&
      this.state('watermark') >= max &&
      // the terms counted again after an edit go on past the summary's watermark (before, a slice after the first said current)
      this.state('terms_upto') >= max &&
      this.state('terms_stale') === 0 &&
      this.state('terms_bulk') === 0 &&
      !this.t.hasChanges()
    );
  }

  /** Whether the author summary (author-summary.ts) holds every item as it is now. It has its own watermark: an index built before it fills it from the first item. */
  authorsCurrent(): boolean {
    if (!this.t.exists() || this.state('version') !== INDEX_VERSION || !this.t.authorTablesExist()) return false;
    return this.state('authors_upto') >= this.t.maxRid() && this.t.authorChanges() === 0;
  }

  /** Items (new or changed) the author summary has yet to take in. */
  authorsBacklog(): number {
    if (!this.t.exists() || this.state('version') !== INDEX_VERSION || !this.t.authorTablesExist()) return this.t.itemCount();
    return Math.max(0, this.t.maxRid() - this.state('authors_upto')) + this.t.authorChanges();
  }

  /** Items (new or changed) the index has yet to take in. */
  backlog(): number {
    if (!this.t.exists() || this.state('version') !== INDEX_VERSION) return this.t.itemCount();
    const max = this.t.maxRid();
    // a build from scratch goes by its terms: its daily counts are held in memory meanwhile (daily-acc.ts)
    const terms = this.state('terms_stale') === 1 ? 0 : this.state('terms_upto');
    const from = this.state('terms_bulk') === 1 ? terms : Math.min(this.state('watermark'), terms);
    // a build from scratch's end (bulk-terms.ts: the totals, the indexes) weighs as a fiftieth of the items, and more than a read takes in
    const end = this.state('terms_bulk') === 1 ? Math.max(SYNC_BUDGET + 1, Math.ceil(this.t.itemCount() / 50)) : 0;
    return Math.max(0, max - from) + this.t.changeWeight() + end;
  }

  /**
   * How far the index is (IndexStatus): items, how many the terms and daily counts have yet to
   * take in (new or changed, at most the items; the author summary after them is ~20× quicker and
   * not counted), complete, a build running.
   */
  status(): IndexStatus {
    const items = this.t.itemCount();
    const current = this.current() && this.authorsCurrent();
    const waiting = this.current() ? 0 : Math.min(items, this.backlog());
    return { items, waiting, current, building: this.builder !== null || this.warming !== null };
  }

  private warming: Promise<void> | null = null;
  /** the worker thread building the index (./index-worker.ts) while it runs; this connection then leaves the index alone */
  private builder: IndexBuilder | null = null;
  private builderFailed = false;
  private stopping = false;

  /**
   * Builds the index in the background: in a worker thread of its own, at the lowest CPU priority
   * where the platform sets it per thread (Linux), when this index was made with `worker` and the
   * archive is a writable file — the app's thread and the renderer keep their cores; otherwise on
   * this thread, in slices of about SLICE_MS with the event loop served in between.
   */
  warm(): Promise<void> {
    this.warming ??= (this.opts.worker ? this.startBuilder() : null) ?? this.warmHere();
    return this.warming;
  }

  private warmHere(): Promise<void> {
    return (async () => {
      try {
        const size = { items: 1_000, authors: 5_000 };
        while (this.t.open && this.writable() && this.buildSlice(size)) await new Promise((r) => setImmediate(r));
      } catch {
        // a busy or closed archive: the next read retries
      } finally {
        this.warming = null;
      }
    })();
  }

  /**
   * One slice of a background build (the index's terms and daily counts first, then the author
   * summary), its size in `size` adjusted toward SLICE_MS; false when nothing is left to do.
   */
  buildSlice(size: { items: number; authors: number }, targetMs = SLICE_MS): boolean {
    const t0 = performance.now();
    this.upgrade();
    if (!this.current()) {
      this.catchUpNow(size.items, size.items);
      size.items = nextSlice(size.items, performance.now() - t0, targetMs);
      return true;
    }
    if (!this.authorsCurrent()) {
      this.authorsNow(size.authors, size.authors);
      size.authors = nextSlice(size.authors, performance.now() - t0, targetMs);
      return true;
    }
    return false;
  }

  /** Starts the worker thread that builds the index; null where none can (an archive in memory, no worker entry, a failed worker before). */
  private startBuilder(): Promise<void> | null {
    const file = this.archive.path;
    if (this.builderFailed || this.archive.readonly || file === ':memory:' || file === '' || !existsSync(file)) return null;
    const b = startIndexBuilder({ file, nice: this.opts.nice });
    if (!b) return null;
    this.builder = b;
    return b.done.then((ok) => {
      if (!ok && !this.stopping) this.builderFailed = true; // the next build runs on this thread
      this.stopping = false;
      this.builder = null;
      this.warming = null;
    });
  }

  /** Stops a worker thread's build (the slice under way is rolled back) and waits for it. */
  async stop(): Promise<void> {
    if (!this.builder) return;
    this.stopping = true;
    await this.builder.stop();
  }

  /**
   * Brings the index up to date when at most `budget` items wait (default: what a read can
   * afford, SYNC_BUDGET); a larger backlog is built in the background (warm) and false returned,
   * as it is when the index cannot be written: callers then read the items.
   */
  catchUp(budget = SYNC_BUDGET): boolean {
    if (!this.gate.run(() => (this.upgrade(), true))) return false;
    this.catchUpAuthors(budget);
    if (this.current()) return true;
    if (!this.writable() || this.builder) return false;
    if (this.backlog() > budget) {
      if (this.opts.background !== false) void this.warm();
      return false;
    }
    return this.gate.run(() => this.catchUpNow(budget));
  }

  /** Takes in what waits: changed items, then new ones in chunks of `step` until `budget` is spent. */
  private catchUpNow(budget: number, step = CHUNK): boolean {
    this.ensureSchema();
    // the end of a build from scratch goes first: changes and new items wait for its indexes
    if (this.bulk.finishing && !this.finishBulk(budget, 0, step)) return false;
    const fields = this.fieldIds();
    this.gate.hold(() =>
      this.t.immediate(() => {
        // the daily counts held in memory first (their items as read): the days are then recounted from the items
        if (this.t.hasChanges()) this.writeHeldDaily();
        takeChanges(this.t, fields, TOTAL_FIELDS);
      }),
    );
    if (this.state('terms_stale') === 1) {
      this.t.immediate(() => {
        this.t.clearTerms();
        this.setState('terms_upto', 0);
        this.setState('terms_stale', 0);
      });
      this.bulk.reset();
    }
    // new items, in chunks (one transaction each: other writers get the lock in between)
    const max = this.t.maxRid();
    let done = 0;
    for (; ; done += step) {
      const wm = this.state('watermark');
      const termsUpto = this.state('terms_upto');
      if (this.daily !== null && this.daily.from !== wm) this.daily = null; // another connection wrote its daily counts
      const dailyUpto = this.daily?.upto ?? wm;
      const from = Math.min(dailyUpto, termsUpto);
      if (from >= max) break;
      if (done >= budget) return false;
      if (termsUpto === 0 && max >= (this.opts.bulk?.min ?? BULK_MIN)) this.startBulk();
      const to = Math.min(max, from + step);
      this.gate.hold(() =>
        this.t.immediate(() => {
          // read under the write lock: another connection may have taken these items in meanwhile, or changed one
          if (this.state('watermark') !== wm || this.state('terms_upto') !== termsUpto) return;
          const rows = this.t.itemsBetween(from, to);
          const bulk = this.state('terms_bulk') === 1;
          writeItemTerms(this.t, bulk ? this.bulk.itemIds(rows, termsUpto) : this.incremental(rows, termsUpto));
          this.setState('terms_upto', Math.max(termsUpto, to));
          this.addDaily(
            rows.filter((r) => r[0] > dailyUpto),
            fields,
            bulk,
            to,
          );
        }),
      );
    }
    // the items are all in: the daily counts held in memory are written before the end of the build
    if (this.daily !== null) this.gate.hold(() => this.t.immediate(() => this.writeHeldDaily()));
    return this.finishBulk(budget, done, step);
  }

  /**
   * The daily counts of a chunk's items after the summary's watermark (or after the counts held):
   * held in memory while the terms are built from scratch (daily-acc.ts), else added to the table.
   * Call inside the chunk's transaction.
   */
  private addDaily(rows: IndexItemRow[], fields: Map<string, number>, bulk: boolean, to: number): void {
    const wm = this.state('watermark');
    if (!bulk) {
      this.writeHeldDaily();
      writeDaily(this.t, rows, fields);
      this.setState('watermark', Math.max(this.state('watermark'), to));
      return;
    }
    this.daily ??= new DailyAcc(wm, wm, this.opts.bulk?.daily);
    this.daily.add(this.t, rows, fields, to);
    if (this.daily.full) this.writeHeldDaily();
  }

  /** Writes the daily counts held in memory, if any (nothing when another connection moved the watermark meanwhile). Call inside a transaction. */
  private writeHeldDaily(): void {
    this.daily?.write(this.t);
    this.daily = null;
  }

  /** A build from scratch (bulk-terms.ts) when the terms are empty: an_terms's indexes go until its end. */
  private startBulk(): void {
    this.t.immediate(() => {
      if (this.state('terms_bulk') === 1 || this.state('terms_upto') !== 0 || !this.t.termsEmpty()) return;
      this.t.dropTermKeys();
      this.setState('terms_bulk', 1);
    });
  }

  /** The end of a build from scratch, a step per `step` items of `budget` (`done` spent); true when over (or none). */
  private finishBulk(budget: number, done: number, step: number): boolean {
    for (; this.state('terms_bulk') === 1; done += step) {
      if (done >= budget) return false;
      if (this.bulk.finishStep()) break;
    }
    this.bulk.reset(); // over (here or by another connection)
    return true;
  }

  /** Brings the author summary up to date when at most `budget` items wait (else in the background, and false), as catchUp does the rest. */
  private catchUpAuthors(budget = SYNC_BUDGET): boolean {
    if (this.authorsCurrent()) return true;
    if (!this.writable() || this.builder) return false;
    if (this.authorsBacklog() > budget) {
      if (this.opts.background !== false) void this.warm();
      return false;
    }
    return this.gate.run(() => this.authorsNow(budget));
  }

  /** Takes the author summary's changes in, then new items in chunks of `step` until `budget` is spent. */
  private authorsNow(budget: number, step = AUTHOR_CHUNK): boolean {
    this.ensureSchema();
    this.t.immediate(() => this.t.applyAuthorChanges());
    const max = this.t.maxRid();
    for (let done = 0; ; done += step) {
      const from = this.state('authors_upto');
      if (from >= max) return true;
      if (done >= budget) return false;
      const to = Math.min(max, from + step);
      this.t.immediate(() => {
        if (this.state('authors_upto') !== from) return; // another connection took them in meanwhile
        this.t.addAuthorsBetween(from, to);
        this.setState('authors_upto', to);
      });
    }
  }

  /** label_fields ids by family\0field */
  private fieldIds(): Map<string, number> {
    const m = new Map<string, number>();
    for (const r of this.t.labelFields()) m.set(r.family + '\u0000' + r.field, r.ff);
    return m;
  }

  /** The term ids of the items after `after` among `rows`, their totals added into an_terms (chunk-terms.ts). */
  private incremental(rows: IndexItemRow[], after: number): ItemIds[] {
    const chunk = new ChunkTerms(TOTAL_FIELDS);
    for (const r of rows) if (r[0] > after) chunk.add(r);
    return chunk.itemIds(chunk.write(this.t.termWriter()));
  }

  // ───────── reading ─────────

  /** Archive-wide totals of one field, ranked in SQL (frequency.ts TotalsSource). */
  totals(
    field: TermField,
    sort: string,
    dir: 'asc' | 'desc',
    limit: number,
  ): { distinct: number | null; ranked: Array<[string, TermAcc]> } | null {
    const no = FIELD_NO[field];
    if (no === undefined || !this.catchUp()) return null;
    const rows = this.t.topTerms(no, sort, dir, limit);
    return {
      distinct: null,
      ranked: rows.map((r) => [
        r.term,
        {
          count: r.docs ?? 0,
          occ: r.occ ?? 0,
          first: r.first,
          last: r.last,
          sums: [r.views, r.likes, r.comments, r.shares, r.saves, r.engagement],
        },
      ]),
    };
  }

  /**
   * A field's table over the items a (non-empty) query matches, counted from the term ids kept
   * per item (term-ids.ts) when the index is current; else null (frequency.ts tokenizes the items).
   */
  counted(
    q: LibraryQuery,
    field: TermField,
    sort: string,
    dir: 'asc' | 'desc',
    limit: number,
  ): { distinct: number; ranked: Array<[string, TermAcc]> } | null {
    const no = FIELD_NO[field];
    if (no === undefined || !this.catchUp()) return null;
    return tableFromIds(this.archive, q, no, sort, dir, limit);
  }

  /** (day, key, items) rows of a chart from the daily summary (charts.ts ChartRowsSource). */
  dayRows(q: LibraryQuery, by: 'platform' | 'label', family?: string, field?: string): DayRow[] | null {
    const p = this.t.plainFilter(q);
    if (p === null || !this.catchUp()) return null;
    if (by === 'platform') return this.t.dailyRows(p, 0, 'platform');
    const ff = this.fieldIds().get(`${family}\u0000${field}`);
    if (ff === undefined) return [];
    return this.t.dailyRows(p, ff, 'label');
  }

  /** The top n authors of a plain query from the author summary, for Archive.topAuthors; null when it cannot answer. */
  topAuthors(q: LibraryQuery, n: number): AuthorCount[] | null {
    const p = this.t.plainFilter(q);
    if (p === null || !this.catchUpAuthors()) return null;
    return this.t.topAuthors(q, p, n);
  }

  /** The top authors of a frequency table over a plain query from the author summary (frequency.ts TotalsSource), without names; null when it cannot answer. */
  authors(q: LibraryQuery, sort: string, dir: 'asc' | 'desc', limit: number): { distinct: number; rows: AuthorCountRow[] } | null {
    const p = this.t.plainFilter(q);
    if (p === null || !this.catchUpAuthors()) return null;
    return this.t.authorRows(q, p, { sort, dir, limit });
  }

  /** A label field's value groups (value, typeof, items) over a plain query, for Archive.labelDistribution. */
  labelGroups(
    q: LibraryQuery,
    family: string,
    field: string,
  ): Array<{ v: string | number | bigint | Buffer; t: string; c: number }> | null {
    const p = this.t.plainFilter(q);
    if (p === null || !this.catchUp()) return null;
    const ff = this.fieldIds().get(`${family}\u0000${field}`);
    if (ff === undefined) return [];
    return this.t.labelGroups(p, ff);
  }
}
