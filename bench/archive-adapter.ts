/**
 * The benchmark's view of the archive (src/core/archive). Loaded at run time so the bench
 * still runs (reporting n/a for archive numbers) when the archive is not there.
 */
import type { ExportRow } from '../src/core/ports';
import type { LibraryQuery } from '../src/shared/query';

export interface BenchArchive {
  /** bulk ingest of posts with provenance (one pseudo call per batch, `callId`) */
  ingest(items: Array<{ platform: string; kind: string; record: Record<string, unknown> }>, callId: string): void | Promise<void>;
  query(q: LibraryQuery): { rows: unknown[]; next: string | null } | Promise<{ rows: unknown[]; next: string | null }>;
  /** the lean page the Library view asks for (library.query with lean: true) */
  listQuery(q: LibraryQuery): unknown;
  /** the exact count of the query's filters (library.count) */
  count(q: LibraryQuery): unknown;
  volumeOverTime(q: LibraryQuery, bucket: 'day' | 'week'): unknown;
  labelDistribution(q: LibraryQuery, family: string, field: string): unknown;
  iterateExportRows(q: LibraryQuery): Iterable<ExportRow> | AsyncIterable<ExportRow>;
  /** the SQLite table holding one row per item, for the sqlite3 CLI comparison */
  itemsTable: string;
  close(): void;
}

type Fn = (...args: unknown[]) => unknown;

/** null when src/core/archive has no openArchive yet */
export async function loadArchive(): Promise<((file: string) => Promise<BenchArchive>) | null> {
  let mod: Record<string, unknown>;
  try {
    const spec = '../src/core/archive/index';
    mod = (await import(/* @vite-ignore */ spec)) as Record<string, unknown>;
  } catch {
    return null;
  }
  const open = mod.openArchive as Fn | undefined;
  if (typeof open !== 'function') return null;
  return async (file: string) => {
    const a = (await open(file)) as Record<string, Fn>;
    const m = (name: string): Fn => {
      const f = a[name];
      if (typeof f !== 'function') throw new Error(`archive has no ${name}()`);
      return f.bind(a);
    };
    return {
      // provenance: every batch is recorded as one stored (envelope-less) answer, like a bulk load
      ingest: (items, callId) =>
        m('ingestItems')(items, { callId, source: 'bench', endpoint: 'bench/ingest', platform: items[0]?.platform }) as void,
      query: (q) => m('query')(q) as { rows: unknown[]; next: string | null },
      listQuery: (q) => m('listQuery')(q),
      count: (q) => m('count')(q),
      volumeOverTime: (q, b) => m('volumeOverTime')(q, b),
      labelDistribution: (q, fam, field) => m('labelDistribution')(q, fam, field),
      iterateExportRows: (q) => m('iterateExportRows')(q) as Iterable<ExportRow>,
      itemsTable: 'items',
      close: () => void m('close')(),
    };
  };
}
