/**
 * The archive's private connection and what every table family shares: the statement cache, the
 * storage-error guard, the clock and the caches. The family modules (items.ts, labels.ts,
 * ledger.ts, walks.ts, library.ts, aggregates.ts, annotations.ts, export-rows.ts, watchlists.ts,
 * and the analysis layer's chart-rows.ts, term-counts.ts, compare-rows.ts, network-facts.ts,
 * analysis-index.ts) are free functions over one `ArchiveCtx`; `Archive` (archive.ts) is the
 * facade that holds it.
 * Nothing outside src/core/archive reaches the connection (tests: testing.ts).
 */
import type { Statement } from 'better-sqlite3';
import type { AuthorCount, LibraryQuery } from '../../shared/query';
import { isStorageError, toStorageError, type StorageOp } from '../storage-error';
import type { Db } from './connection';
import { DENSE } from './sql-query';
import { Statements, type SqlRead } from './sql';

export interface OpenArchiveOptions {
  /** ms since epoch; used for annotation times and bulk-ingest seen times */
  clock?: () => number;
  /**
   * The archive's path as the user knows it, for error messages (default: the file opened).
   * A read-only snapshot (open.ts) opens a temporary copy but names the original.
   */
  path?: string;
  /** called once by close() (a snapshot removes its temporary copy) */
  onClose?: () => void;
  /** matching rows from which a filter is probed per row instead of materialised (tests force 1) */
  denseAt?: number;
  /** who is annotating (tags, notes, label overrides, saved sets carry it): the name in Settings; null = unknown */
  author?: () => string | null;
  /** the free space below which no charged request is sent (writable.ts `requireRoom`; default MIN_FREE_BYTES) */
  minFreeBytes?: number;
  /** how the archive was opened when not as usual, one sentence for the user (open.ts: a full disk) */
  note?: string;
  /** no other connection can open the file while this one is open (EXCLUSIVE locking on a full disk, open.ts): exports read on this one */
  oneConnection?: boolean;
}

/** Value groups of one label field from a summary kept elsewhere (analysis-index.ts), or null to read item_labels. */
export type LabelGroupsSource = (
  q: LibraryQuery,
  family: string,
  field: string,
) => Array<{ v: string | number | bigint | Buffer; t: string; c: number }> | null;
/** Dated items per UTC day (several rows a day allowed: they add up) from a summary kept elsewhere, or null to read the items. */
export type DayCountsSource = (q: LibraryQuery) => Array<{ d: number; c: number }> | null;
/** The top n authors of a query from a summary kept elsewhere (the analysis index's author summary), or null to read the items. */
export type AuthorCountsSource = (q: LibraryQuery, n: number) => AuthorCount[] | null;

/**
 * The read context: what a function that only reads the archive is given. Its statements read
 * (`sql: SqlRead`: get, all, iterate, rows, value, values — no run, no insert) and it holds no
 * connection, so a function typed `(c: ReadCtx, …)` cannot write, and says so in its signature.
 * `ArchiveCtx` — the write context — is one: callers pass the same object to either kind
 * (docs/architecture.md "Read and write contexts").
 */
export interface ReadCtx {
  readonly path: string;
  readonly clock: () => number;
  readonly author: () => string | null;
  readonly sql: SqlRead;
  readonly denseAt: number;
  readonly fixedDense: boolean;
  readonly ffCache: ReadonlyMap<string, number>;
  readonly countCache: Map<string, { n: number; ver: string }>;
  readonly aggCache: Map<string, { v: unknown; ver: string }>;
  readonly labelGroupsSource: LabelGroupsSource | null;
  readonly dayCountsSource: DayCountsSource | null;
  readonly authorCountsSource: AuthorCountsSource | null;
  guard<T>(op: StorageOp, f: () => T): T;
  /** `f` in one transaction (a consistent view over several reads) */
  tx<T>(f: () => T): T;
  dataVersion(): string;
}

/** The write context: the connection's statements read and write (`sql: Statements`, an `SqlWrite`). */
export class ArchiveCtx implements ReadCtx {
  /** the archive's path as the user knows it (error messages) */
  readonly path: string;
  readonly clock: () => number;
  /** the annotating person's name (OpenArchiveOptions.author) */
  readonly author: () => string | null;
  readonly sql: Statements;
  readonly denseAt: number;
  readonly fixedDense: boolean;
  /**
   * label_fields ids by `family\0field`. Only ids that are committed go in here: they never
   * change, and an id created by a transaction that rolls back could otherwise be handed to
   * another field later (ids are max + 1). See labels.ts fieldIds().
   */
  readonly ffCache = new Map<string, number>();
  /** exact totals per filter set, valid for one dataVersion (library.ts) */
  readonly countCache = new Map<string, { n: number; ver: string }>();
  /** aggregate results per (method, arguments), valid for one dataVersion (aggregates.ts) */
  readonly aggCache = new Map<string, { v: unknown; ver: string }>();
  /** a page's plan samples and estimates per statement and parameters, valid for one dataVersion (library.ts) */
  readonly planCache = new Map<string, { v: unknown; ver: string }>();
  labelGroupsSource: LabelGroupsSource | null = null;
  dayCountsSource: DayCountsSource | null = null;
  authorCountsSource: AuthorCountsSource | null = null;

  constructor(
    readonly db: Db,
    opts: OpenArchiveOptions = {},
  ) {
    this.path = opts.path ?? (db.name || ':memory:');
    this.clock = opts.clock ?? Date.now;
    this.author = opts.author ?? (() => null);
    this.minFreeBytes = opts.minFreeBytes ?? null;
    this.oneConnection = opts.oneConnection ?? false;
    this.denseAt = Math.max(1, opts.denseAt ?? DENSE);
    this.fixedDense = opts.denseAt !== undefined;
    this.sql = new Statements(db);
  }

  /** Prepared statement of this text (dynamic library SQL is bounded by the query shapes). */
  st(text: string): Statement {
    return this.sql.text(text);
  }

  /**
   * Runs `f`, turning SQLite / file-system failures into a StorageError naming this archive, the
   * cause and the way out (disk full, read-only, damaged, locked, I/O). Other errors pass as they are.
   */
  guard<T>(op: StorageOp, f: () => T): T {
    try {
      return f();
    } catch (e) {
      const s = toStorageError(e, this.path, { op });
      // after any storage failure the archive proves itself again before the next charged request
      if (s !== e || isStorageError(e)) this.writableProven = false;
      throw s;
    }
  }

  /** writable.ts proved this session that the archive can take an answer (reset by any storage failure) */
  writableProven = false;

  /** OpenArchiveOptions.minFreeBytes (null: writable.ts's default) */
  readonly minFreeBytes: number | null;

  /** OpenArchiveOptions.oneConnection */
  readonly oneConnection: boolean;

  /** `f` in one transaction. */
  tx<T>(f: () => T): T {
    return this.db.transaction(f)();
  }

  /** rows this connection changed in writes that leave the items' answers as they were (quiet) */
  #quietChanges = 0;

  #totalChanges(): number {
    return (this.st('SELECT total_changes() AS c').get() as { c: number }).c;
  }

  /**
   * Runs `f`, a write that changes nothing a query of the items reads — the ledger, the journal,
   * the balance, the analysis index's derived tables — so that dataVersion() does not move for it:
   * the caches keyed by it (library counts, chart results, the network view's build) survive
   * a background index slice or a balance update. Anything not run here moves it (the safe side).
   */
  quiet<T>(f: () => T): T {
    // nested: the outermost counts the changes once
    if (this.#quietDepth > 0) return f();
    const before = this.#totalChanges();
    this.#quietDepth++;
    try {
      return f();
    } finally {
      this.#quietDepth--;
      this.#quietChanges += this.#totalChanges() - before;
    }
  }
  #quietDepth = 0;

  /** Changes whenever this archive's items may have changed: own writes (other than quiet ones) or another connection's commits. */
  dataVersion(): string {
    return `${this.db.pragma('data_version', { simple: true }) as number}:${this.#totalChanges() - this.#quietChanges}`;
  }
}

const contexts = new WeakMap<object, ArchiveCtx>();

/** Ties a facade to its context (archive.ts); read back only by testing.ts. */
export function registerCtx(owner: object, c: ArchiveCtx): void {
  contexts.set(owner, c);
}

export function ctxOf(owner: object): ArchiveCtx {
  const c = contexts.get(owner);
  if (!c) throw new Error('not an archive');
  return c;
}
