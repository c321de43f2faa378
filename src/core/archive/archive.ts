/**
 * The local SQLite archive: persistence for the request core (CoreStore) and the library on top
 * of it (queries, full-text search, aggregates, annotations, export rows, watchlists).
 * Synchronous (better-sqlite3); every public method is one transaction or one read statement.
 *
 * `Archive` is a thin facade: the SQL lives in one module per table family, free functions over
 * the private connection (context.ts): items.ts, labels.ts, ledger.ts (ledger, journal,
 * balance), walks.ts, library.ts, aggregates.ts, annotations.ts, export-rows.ts, watchlists.ts,
 * and the analysis layer's rows: chart-rows.ts, term-counts.ts, compare-rows.ts, network-facts.ts,
 * analysis-index.ts (its `an_*` tables).
 * See docs/archive.md.
 */
import type {
  CoreStore,
  ExportRow,
  ExportRowSource,
  ItemRef,
  JournalEntry,
  LedgerEntry,
  StoredResponse,
  WalkState,
  WalkStatus,
} from '../ports';
import { toStorageError } from '../storage-error';
import type {
  ArchivedItem,
  AuthorCount,
  CreditsPoint,
  EngagementField,
  EngagementPoint,
  ItemCall,
  LabelShare,
  LibraryListRow,
  LibraryPage,
  LibraryQuery,
  ResultSet,
  TagCount,
  TimeBucket,
  UsageCounts,
  VolumePoint,
} from '../../shared/query';
import type { PostBrief } from '../../shared/analysis';
import * as aggregates from './aggregates';
import { AnalysisTables } from './analysis-index';
import * as annotations from './annotations';
import * as chartRows from './chart-rows';
import { ArchiveError } from './archive-error';
import * as compareRows from './compare-rows';
import { DatasetStore } from './datasets';
import { RehydrationStore } from './rehydrations';
import {
  ArchiveCtx,
  registerCtx,
  type AuthorCountsSource,
  type DayCountsSource,
  type LabelGroupsSource,
  type OpenArchiveOptions,
} from './context';
import { openDb, type Db } from './db';
import * as exportRows from './export-rows';
import * as heldNames from './held-names';
import * as items from './items';
import type { IngestProvenance, IngestRow, Ingested } from './items';
import { rebuildDerived } from './labels';
import * as library from './library';
import * as ledger from './ledger';
import * as networkFacts from './network-facts';
import { reconcileLedger, type ReconcileReport } from './reconcile';
import { parseQuery } from './sql-query';
import * as termCounts from './term-counts';
import { authorNames, type AuthorKey } from './author-summary';
import * as walks from './walks';
import { proveWritable, requireRoom } from './writable';
import { WatchStore } from './watchlists';
import { CollectStore } from './collect';
import { TagStore } from './tags';

export { QueryError } from './sql-query';
export { ArchiveVersionError } from './db';
export { ArchiveError };
export type { OpenArchiveOptions } from './context';
export type { IngestProvenance, IngestRow } from './items';

type Range = { since?: number; until?: number };

export class Archive implements CoreStore {
  readonly #c: ArchiveCtx;
  /** the watchlist tables (watchlists.ts), on this archive's connection */
  readonly watchlists: WatchStore;
  /** the collection plans' tables (collect.ts), on this archive's connection */
  readonly collect: CollectStore;
  /** the analysis index's `an_*` tables (analysis-index.ts), maintained by src/core/analysis/analysis-index.ts */
  readonly analysisTables: AnalysisTables;
  /** metric history, availability, imported provenance (datasets.ts, issue 29) */
  readonly datasets: DatasetStore;
  /** rehydrations of dehydrated bundles and what became of each item (rehydrations.ts, issue 29) */
  readonly rehydrations: RehydrationStore;
  /** tag management: rename, merge, delete, colour (tags.ts, issue 27 #7) */
  readonly tags: TagStore;
  private readonly onClose: (() => void) | undefined;
  /** how it was opened when not as usual (OpenArchiveOptions.note), else null */
  readonly note: string | null;

  constructor(db: Db, opts: OpenArchiveOptions = {}) {
    this.#c = new ArchiveCtx(db, opts);
    registerCtx(this, this.#c);
    this.onClose = opts.onClose;
    this.note = opts.note ?? null;
    this.watchlists = new WatchStore(this.#c);
    this.collect = new CollectStore(this.#c);
    this.analysisTables = new AnalysisTables(this.#c);
    this.datasets = new DatasetStore(this.#c);
    this.rehydrations = new RehydrationStore(this.#c);
    this.tags = new TagStore(this.#c);
  }

  /** the archive's path as the user knows it (error messages) */
  get path(): string {
    return this.#c.path;
  }

  close(): void {
    const db = this.#c.db;
    this.#c.sql.clear();
    if (db.open) {
      db.close();
      this.onClose?.();
    }
  }

  /** Changes whenever the archive's content may have changed (own writes or another connection's commits). */
  dataVersion(): string {
    return this.#c.dataVersion();
  }

  /** True when this connection cannot write (a read-only file or folder, or a snapshot). */
  get readonly(): boolean {
    const db = this.#c.db;
    return db.readonly || (db.pragma('query_only', { simple: true }) as number) === 1;
  }

  /** Rebuilds the label rows and the full-text index from the items (after `loupe archive recover`). */
  rebuildDerived(): { items: number; labelRows: number } {
    return this.#c.guard('write', () => rebuildDerived(this.#c));
  }

  // ───────────────────────── idempotency journal, ledger, balance (ledger.ts) ─────────────────────────

  findJournal(opKey: string): JournalEntry | undefined {
    return this.#c.guard('read', () => ledger.findJournal(this.#c, opKey));
  }
  /** Writes the entry (re-beginning the same callId updates it; another call with the same opKey throws). */
  beginJournal(e: JournalEntry): void {
    this.#c.guard('write', () => ledger.beginJournal(this.#c, e));
  }
  finishJournal(callId: string, state: 'done' | 'failed', at: number): void {
    this.#c.guard('write', () => ledger.finishJournal(this.#c, callId, state, at));
  }
  pendingJournal(): JournalEntry[] {
    return this.#c.guard('read', () => ledger.pendingJournal(this.#c));
  }
  /**
   * Proves the archive can take an answer before a charged request (writable.ts): once per session
   * and again after any storage failure. Throws the StorageError (the storage sentence) otherwise.
   */
  ensureWritable(): void {
    this.#c.guard('write', () => requireRoom(this.#c)); // every charged request: the disk has room for the answers in flight
    if (this.#c.writableProven) return;
    this.#c.guard('write', () => proveWritable(this.#c));
    this.#c.writableProven = true;
  }
  journalAround(callId: string, from: number, to: number): JournalEntry[] {
    return this.#c.guard('read', () => ledger.journalAround(this.#c, callId, from, to));
  }
  recordAttempt(e: LedgerEntry): number {
    return this.#c.guard('write', () => ledger.recordAttempt(this.#c, e));
  }
  ledgerHighWater(): number {
    return this.#c.guard('read', () => ledger.ledgerHighWater(this.#c));
  }
  ledgerCreditsSince(afterId: number, since: number): number {
    return this.#c.guard('read', () => ledger.ledgerCreditsSince(this.#c, afterId, since));
  }
  ledgerFreeSince(afterId: number, since: number): number {
    return this.#c.guard('read', () => ledger.ledgerFreeSince(this.#c, afterId, since));
  }
  ledgerBetween(afterId: number, upToId: number, since: number): LedgerEntry[] {
    return this.#c.guard('read', () => ledger.ledgerBetween(this.#c, afterId, upToId, since));
  }
  ledgerOfRequest(platform: string, endpoint: string, paramsHash: string, from: number, to: number): LedgerEntry[] {
    return this.#c.guard('read', () => ledger.ledgerOfRequest(this.#c, platform, endpoint, paramsHash, from, to));
  }
  ledgerOfList(platform: string, endpoint: string, params: string, from: number, to: number): LedgerEntry[] {
    return this.#c.guard('read', () => ledger.ledgerOfList(this.#c, platform, endpoint, params, from, to));
  }
  ledgerOfCall(callId: string): LedgerEntry[] {
    return this.listLedger({ callId, limit: 10_000 });
  }
  /** Newest first; `beforeId` pages back. */
  listLedger(opts: { limit?: number; beforeId?: number; callId?: string } = {}): LedgerEntry[] {
    return this.#c.guard('read', () => ledger.listLedger(this.#c, opts));
  }
  /** When each named key last made a call (Settings: confirming a key rotation). */
  lastUsedByKey(): Map<string, number> {
    return ledger.lastUsedByKey(this.#c);
  }
  setBalance(creditsRemaining: number, at: number): void {
    this.#c.guard('write', () => ledger.setBalance(this.#c, creditsRemaining, at));
  }
  getBalance(): { creditsRemaining: number; at: number } | undefined {
    return this.#c.guard('read', () => ledger.getBalance(this.#c));
  }
  /** Another connection's commits, the ledger's last row, the balance's time (ledger.ts `ledgerMark`). */
  ledgerMark(): { dataVersion: number; lastCall: number; balanceAt: number | null } {
    return this.#c.guard('read', () => ledger.ledgerMark(this.#c));
  }
  /** The ledger against the balance readings (reconcile.ts; `loupe credits reconcile`). */
  reconcileLedger(range: Range = {}): ReconcileReport {
    return reconcileLedger(this.#c.db, range);
  }
  /** Forgets the last known balance (a switch of service: the next answer sets it). */
  clearBalance(): void {
    ledger.clearBalance(this.#c);
  }

  // ───────────────────────── stored answers + items (items.ts) ─────────────────────────

  storeResponse(r: StoredResponse, source: string, walkId: string | null): Ingested {
    return this.#c.guard('write', () => items.storeResponse(this.#c, r, source, walkId));
  }
  /** A walk answered from a stored response: its items linked to the walk and source, once. */
  linkStoredResponse(r: StoredResponse, source: string, walkId: string | null): Ingested {
    return items.linkStoredResponse(this.#c, r, source, walkId);
  }
  noteServedFromArchive(s: { at: number; source: string | null; platform: string; endpoint: string }): void {
    this.#c.guard('write', () => aggregates.noteServedFromArchive(this.#c, s));
  }
  /** Bulk load (benchmarks, imports): one transaction for all rows. */
  ingestItems(rows: IngestRow[], provenance?: IngestProvenance): Ingested {
    return this.#c.guard('write', () => items.ingestItems(this.#c, rows, provenance));
  }
  findFreshResponse(platform: string, endpoint: string, paramsHash: string, since: number): StoredResponse | undefined {
    return this.#c.guard('read', () => items.findFreshResponse(this.#c, platform, endpoint, paramsHash, since));
  }

  // ───────────────────────── walks (walks.ts) ─────────────────────────

  /** Saves the walk, owned by the calling process (a walk whose owner is gone reads `interrupted`). */
  saveWalk(w: WalkState): void {
    this.#c.guard('write', () => walks.saveWalk(this.#c, w));
  }
  getWalk(walkId: string): WalkState | undefined {
    return this.#c.guard('read', () => walks.getWalk(this.#c, walkId));
  }
  /** Newest activity first; the status filter applies to the statuses as read. */
  listWalks(filter?: { status?: WalkStatus[] }): WalkState[] {
    return this.#c.guard('read', () => walks.listWalks(this.#c, filter));
  }

  // ───────────────────────── library: queries, export rows (library.ts, export-rows.ts) ─────────────────────────

  /** Keyset page of rows. Sort values that are unknown come last in both directions; ties by rid. */
  query(input: LibraryQuery): LibraryPage {
    return this.#c.guard('read', () => library.query(this.#c, input));
  }
  /** The same page with lean rows (no raw record; a list's page: docs/renderer.md); the same cursors. */
  listQuery(input: LibraryQuery): LibraryPage<LibraryListRow> {
    return this.#c.guard('read', () => library.listQuery(this.#c, input));
  }
  /** Exact number of items matching the filters (cached until the archive changes). */
  count(input: LibraryQuery): number {
    return this.#c.guard('read', () => library.countQuery(this.#c, parseQuery(input)));
  }
  /** Every row of a query in its sort order, streamed from a read-only connection of its own. */
  iterateExportRows(input: LibraryQuery): ExportRowSource {
    return exportRows.iterateExportRows(this.#c, input);
  }
  /** Export rows of explicit items, in the given order; unknown refs are skipped. */
  exportRowsFor(refs: ItemRef[]): IterableIterator<ExportRow> {
    return exportRows.exportRowsFor(this.#c, refs);
  }
  /** One item with its annotations and provenance, or undefined. */
  getItem(platform: string, kind: string, id: string): ArchivedItem | undefined {
    return this.#c.guard('read', () => library.getItem(this.#c, platform, kind, id));
  }
  /** Which calls returned the item, when and at what cost (newest first). */
  itemCalls(platform: string, kind: string, id: string): ItemCall[] {
    return library.itemCalls(this.#c, platform, kind, id);
  }

  // ───────────────────────── library: aggregates (aggregates.ts) ─────────────────────────

  volumeOverTime(q: LibraryQuery, bucket: TimeBucket): VolumePoint[] {
    return aggregates.volumeOverTime(this.#c, q, bucket);
  }
  engagementOverTime(q: LibraryQuery, bucket: TimeBucket, field: EngagementField): EngagementPoint[] {
    return aggregates.engagementOverTime(this.#c, q, bucket, field);
  }
  labelDistribution(q: LibraryQuery, family: string, field: string): LabelShare[] {
    return aggregates.labelDistribution(this.#c, q, family, field);
  }
  /** Value groups from a summary kept elsewhere (src/core/analysis/analysis-index.ts), or null to read item_labels. */
  get labelGroupsSource(): LabelGroupsSource | null {
    return this.#c.labelGroupsSource;
  }
  set labelGroupsSource(f: LabelGroupsSource | null) {
    this.#c.labelGroupsSource = f;
  }
  /** Items per day from a summary kept elsewhere (the analysis index's daily counts), or null to read the items. */
  get dayCountsSource(): DayCountsSource | null {
    return this.#c.dayCountsSource;
  }
  set dayCountsSource(f: DayCountsSource | null) {
    this.#c.dayCountsSource = f;
  }
  /** The top authors of a query from a summary kept elsewhere (the analysis index's author summary), or null to read the items. */
  get authorCountsSource(): AuthorCountsSource | null {
    return this.#c.authorCountsSource;
  }
  set authorCountsSource(f: AuthorCountsSource | null) {
    this.#c.authorCountsSource = f;
  }
  /** The networks and kinds of item the archive holds (held-names.ts: index probes, no scan). */
  heldPlatformKinds(): Array<{ platform: string; kind: string }> {
    return heldNames.heldPlatformKinds(this.#c);
  }
  /** Every (family, field) the archive holds labels or overrides for. */
  heldLabelFields(): Array<{ family: string; field: string }> {
    return heldNames.heldLabelFields(this.#c);
  }
  holdsLabelValue(family: string, field: string, value: string): boolean {
    return heldNames.holdsLabelValue(this.#c, family, field, value);
  }
  heldLabelValues(family: string, field: string): string[] {
    return heldNames.heldLabelValues(this.#c, family, field);
  }

  topAuthors(q: LibraryQuery, n: number): AuthorCount[] {
    return aggregates.topAuthors(this.#c, q, n);
  }
  /** Dated items per day and platform, tag or label value group (the analysis charts' rows; `q` parsed). */
  dayRows(q: LibraryQuery, by: 'platform' | 'tag' | 'label', family?: string, field?: string): chartRows.DayRow[] {
    return chartRows.dayRows(this.#c, q, by, family, field);
  }
  /** Items per decade of one engagement count (`q` parsed). */
  engagementDecades(q: LibraryQuery, field: EngagementField): Array<{ b: number; c: number }> {
    return chartRows.engagementDecades(this.#c, q, field);
  }

  // ───────── the analysis layer's rows (term-counts.ts, compare-rows.ts, network-facts.ts; `q` parsed) ─────────

  /** The texts of the items `q` matches, with dates and counts, streamed (frequency tables tokenize them). */
  termItems(q: LibraryQuery): IterableIterator<termCounts.TermItemRow> {
    return termCounts.termItems(this.#c, q);
  }
  /** Per-author items, first/last publication and sums over `q`. */
  authorCounts(q: LibraryQuery): termCounts.AuthorCountRow[] {
    return termCounts.authorCounts(this.#c, q);
  }
  /** The username and display name of each author's latest archived item a parsed query matches (author-summary.ts). */
  authorNames(q: LibraryQuery, keys: AuthorKey[]): Array<{ username: string | null; displayName: string | null }> {
    return authorNames(this.#c, q, keys);
  }
  /** The analysis index's term ids of one field for every item `q` matches. */
  itemTermIds(q: LibraryQuery, fieldNo: number): termCounts.TermIdsRow[] {
    return termCounts.itemTermIds(this.#c, q, fieldNo);
  }
  /** (id, term) of the analysis index's terms with these ids (a JSON array). */
  termsById(idsJson: string): Array<[number, string]> {
    return termCounts.termsById(this.#c, idsJson);
  }
  /** A comparison series' totals (items, engagement, the engagement rates' sums). */
  seriesTotals(q: LibraryQuery): compareRows.SeriesTotals {
    return compareRows.seriesTotals(this.#c, q);
  }
  /** The rids of the items `q` matches (series overlap). */
  seriesRids(q: LibraryQuery): number[] {
    return compareRows.seriesRids(this.#c, q);
  }
  /** Dated items per UTC day number. */
  seriesDays(q: LibraryQuery): Array<{ d: number; c: number }> {
    return compareRows.seriesDays(this.#c, q);
  }
  /** The `top` posts of highest known engagement. */
  topPosts(q: LibraryQuery, top: number): PostBrief[] {
    return compareRows.topPosts(this.#c, q, top);
  }
  /** The dated posts with an author (overperformance's targets). */
  authoredPosts(q: LibraryQuery): compareRows.AuthoredPost[] {
    return compareRows.authoredPosts(this.#c, q);
  }
  /** One account's dated posts in publication order: rid and engagement. */
  accountHistory(
    authorId: string | null,
    username: string | null,
    platform: string,
    kind: string,
  ): Array<{ rid: number; e: number | null }> {
    return compareRows.accountHistory(this.#c, authorId, username, platform, kind);
  }
  /** What a network needs of every item `q` matches, streamed in archive order (authors only when asked). */
  networkFactRows(q: LibraryQuery, authors: boolean): IterableIterator<networkFacts.FactRow> {
    return networkFacts.factRows(this.#c, q, authors);
  }
  /** Authors of archived items of one platform by id. */
  parentAuthors(platform: string, ids: string[]): networkFacts.ParentAuthorRow[] {
    return networkFacts.parentAuthors(this.#c, platform, ids);
  }

  creditsPerDay(range: Range = {}): CreditsPoint[] {
    return aggregates.creditsPerDay(this.#c, range);
  }
  creditsPerSource(range: Range = {}): CreditsPoint[] {
    return aggregates.creditsPerSource(this.#c, range);
  }
  creditsPerEndpoint(range: Range = {}): CreditsPoint[] {
    return aggregates.creditsPerEndpoint(this.#c, range);
  }
  usageSummary(range: Range = {}): UsageCounts {
    return aggregates.usageSummary(this.#c, range);
  }

  // ───────────────────────── annotations (annotations.ts) ─────────────────────────

  /** Tags are case-insensitive (the first spelling is kept). */
  addTag(ref: ItemRef, tag: string): void {
    this.#c.guard('write', () => annotations.addTag(this.#c, ref, tag));
  }
  removeTag(ref: ItemRef, tag: string): void {
    this.#c.guard('write', () => annotations.removeTag(this.#c, ref, tag));
  }
  listTags(): TagCount[] {
    return annotations.listTags(this.#c);
  }
  tagQuery(q: LibraryQuery, tag: string): number {
    return this.#c.guard('write', () => annotations.tagQuery(this.#c, q, tag));
  }
  untagQuery(q: LibraryQuery, tag: string): number {
    return this.#c.guard('write', () => annotations.untagQuery(this.#c, q, tag));
  }
  setNote(ref: ItemRef, text: string | null): void {
    this.#c.guard('write', () => annotations.setNote(this.#c, ref, text));
  }
  overrideLabel(ref: ItemRef, family: string, field: string, value: unknown): void {
    this.#c.guard('write', () => annotations.overrideLabel(this.#c, ref, family, field, value));
  }
  clearOverride(ref: ItemRef, family: string, field: string): void {
    this.#c.guard('write', () => annotations.clearOverride(this.#c, ref, family, field));
  }
  saveResultSet(name: string, query: LibraryQuery, opts: { tags?: string[]; note?: string | null } = {}): ResultSet {
    return this.#c.guard('write', () => annotations.saveResultSet(this.#c, name, query, opts));
  }
  updateResultSet(id: string, patch: { name?: string; tags?: string[]; note?: string | null; query?: LibraryQuery }): void {
    this.#c.guard('write', () => annotations.updateResultSet(this.#c, id, patch));
  }
  deleteResultSet(id: string): void {
    this.#c.guard('write', () => annotations.deleteResultSet(this.#c, id));
  }
  listResultSets(): ResultSet[] {
    return annotations.listResultSets(this.#c);
  }
}

/**
 * Opens (creating and migrating when needed) the archive at `file`. A damaged or foreign file, a
 * read-only or full disk give a StorageError naming the file and the way out; a file written by
 * a newer Loupe gives ArchiveVersionError. See also open.ts (reading and writing modes).
 */
export function openArchive(file: string, opts: OpenArchiveOptions = {}): Archive {
  let db: Db;
  try {
    db = openDb(file);
  } catch (e) {
    throw toStorageError(e, opts.path ?? file, { op: 'open' });
  }
  return new Archive(db, opts);
}
