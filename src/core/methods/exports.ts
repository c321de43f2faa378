/**
 * The contract's `export.*` methods: exports run in the background (`export.start` → a running
 * ExportJob, `export-progress` events, then `done` with its path and, on the web door, a download
 * URL) into `<dataDir>/exports`.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportJob, MethodParsedInput } from '../../shared/contract';
import type { LibraryQuery } from '../../shared/query';
import { AppError } from '../bridge';
import { CSV_COLUMNS } from '../export';
import { exportAny, exportOptionsError } from '../export';
import { exportAnyOptions } from './export-options';
import type { ExportRow } from '../ports';
import type { ArchivedItem } from '../../shared/query';
import type { AppParts, Slice } from './parts';

interface ExportJobState {
  job: ExportJob;
  abort: AbortController;
  done: Promise<void>;
}

/** Work run as an export job: written under `exportsDir`, cancelled by `signal`, progress in rows. */
export type ExportWork = (o: {
  exportsDir: string;
  signal: AbortSignal;
  progress: (rows: number) => void;
}) => Promise<{ path: string; summary: string; download: boolean }>;

export interface Exports {
  methods: Slice<'export'>;
  /** runs other work (a dataset bundle) as an export job: the same progress events, export.get and export.cancel */
  runJob(total: number | null, work: ExportWork): ExportJob;
  /** cancel every running export and wait for each to stop */
  stop(): Promise<void>;
}

/** An item the archive holds (library.item) as an export row: its record, times, re-check marks and annotations. */
function exportRowOfItem(it: ArchivedItem): ExportRow {
  const { platform, kind, id, record, firstSeenAt, lastSeenAt, checkedAt, missingSince, tags, note, overrides } = it;
  return { platform, kind, id, record, firstSeenAt, lastSeenAt, checkedAt, missingSince, tags, note, overrides };
}

export function createExports(parts: Pick<AppParts, 'archive' | 'clock' | 'emit' | 'dataDir' | 'downloadUrl'>): Exports {
  const { archive, clock, emit, dataDir } = parts;
  const exportsDir = join(dataDir, 'exports');
  const exportJobs = new Map<string, ExportJobState>();

  function exportQuery(i: MethodParsedInput<'export.start'>): LibraryQuery {
    if (i.watchlistId) return { ...(i.query ?? {}), source: { type: 'watchlist', id: i.watchlistId } };
    return i.query ?? {};
  }

  function* itemRows(items: NonNullable<MethodParsedInput<'export.start'>['items']>): Generator<ExportRow> {
    for (const ref of items) {
      const it = archive.getItem(ref.platform, ref.kind, ref.id);
      if (!it) continue;
      yield exportRowOfItem(it);
    }
  }

  const methods: Slice<'export'> = {
    async 'export.start'(i) {
      const exportId = randomUUID();
      const bad = exportOptionsError(i);
      if (bad) throw new AppError('validation', bad);
      mkdirSync(exportsDir, { recursive: true });
      const out = join(exportsDir, exportFileName(clock, i, exportId));
      const query = exportQuery(i);
      const total = i.items ? i.items.length : archive.count({ ...query, limit: undefined, after: undefined });
      const job: ExportJob = { exportId, status: 'running', rows: 0, total, path: null, downloadUrl: null, error: null };
      const abort = new AbortController();
      const rows = i.items ? itemRows(i.items) : archive.iterateExportRows(query);
      const state: ExportJobState = { job, abort, done: Promise.resolve() };
      exportJobs.set(exportId, state);
      const options = exportAnyOptions(i, {
        archive,
        dataDir,
        out,
        of: i.items ? { items: i.items } : { query },
        signal: abort.signal,
        total,
        onProgress: (n) => {
          job.rows = n;
          emit({ type: 'export-progress', job: { ...job } });
        },
      });
      state.done = exportAny(rows, options).then(
        (r) => {
          const files = (r.files ?? []).map((f) => ({
            table: f.table,
            path: f.path,
            rows: f.rows,
            downloadUrl: parts.downloadUrl ? `${parts.downloadUrl(exportId)}&file=${f.table}` : null,
          }));
          Object.assign(job, {
            status: 'done',
            rows: r.rows,
            path: r.path,
            summary: r.summary,
            downloadUrl: parts.downloadUrl ? parts.downloadUrl(exportId) : null,
            files,
          });
          emit({ type: 'export-progress', job: { ...job } });
        },
        (e: unknown) => {
          Object.assign(job, {
            status: abort.signal.aborted ? 'cancelled' : 'failed',
            error: abort.signal.aborted ? null : e instanceof Error ? e.message : String(e),
          });
          emit({ type: 'export-progress', job: { ...job } });
        },
      );
      emit({ type: 'export-progress', job: { ...job } });
      return { ...job };
    },
    async 'export.get'(i) {
      const s = exportJobs.get(i.exportId);
      return s ? { ...s.job } : null;
    },
    async 'export.cancel'(i) {
      const s = exportJobs.get(i.exportId);
      if (!s) return null;
      if (s.job.status === 'running') {
        s.abort.abort();
        await s.done;
      }
      return { ...s.job };
    },
    async 'export.columns'() {
      return [...CSV_COLUMNS];
    },
  };

  return {
    methods,
    runJob: (total, work) => startJob({ exportJobs, exportsDir, emit, downloadUrl: parts.downloadUrl }, total, work),
    async stop() {
      for (const s of exportJobs.values()) if (s.job.status === 'running') s.abort.abort();
      await Promise.allSettled([...exportJobs.values()].map((s) => s.done));
    },
  };
}

function exportFileName(clock: AppParts['clock'], i: MethodParsedInput<'export.start'>, id: string): string {
  const ext = i.format;
  if (i.fileName) return /\.[A-Za-z0-9]{1,5}$/.test(i.fileName) ? i.fileName : `${i.fileName}.${ext}`;
  const stamp = new Date(clock.now()).toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return `loupe-${stamp}-${id.slice(0, 8)}.${ext}`;
}

/** A job of other work (exports.runJob): the same map, events and cancel as an export's. */
function startJob(
  c: { exportJobs: Map<string, ExportJobState>; exportsDir: string; emit: AppParts['emit']; downloadUrl: AppParts['downloadUrl'] },
  total: number | null,
  work: ExportWork,
): ExportJob {
  const { exportJobs, exportsDir, emit } = c;
  const exportId = randomUUID();
  mkdirSync(exportsDir, { recursive: true });
  const job: ExportJob = { exportId, status: 'running', rows: 0, total, path: null, downloadUrl: null, error: null };
  const abort = new AbortController();
  const state: ExportJobState = { job, abort, done: Promise.resolve() };
  exportJobs.set(exportId, state);
  const progress = (n: number) => {
    job.rows = n;
    emit({ type: 'export-progress', job: { ...job } });
  };
  state.done = work({ exportsDir, signal: abort.signal, progress }).then(
    (r) => {
      Object.assign(job, {
        status: 'done',
        path: r.path,
        summary: r.summary,
        downloadUrl: r.download && c.downloadUrl ? c.downloadUrl(exportId) : null,
      });
      emit({ type: 'export-progress', job: { ...job } });
    },
    (e: unknown) => {
      Object.assign(job, {
        status: abort.signal.aborted ? 'cancelled' : 'failed',
        error: abort.signal.aborted ? null : e instanceof Error ? e.message : String(e),
      });
      emit({ type: 'export-progress', job: { ...job } });
    },
  );
  emit({ type: 'export-progress', job: { ...job } });
  return { ...job };
}
