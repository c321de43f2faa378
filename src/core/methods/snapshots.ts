/**
 * The contract's `archive.snapshot*` methods (issue 24 #10): a consistent single-file copy of the
 * archive while the app keeps working (src/core/archive/snapshot.ts), in the background like an
 * export — a running SnapshotJob, `snapshot-progress` events (about every 1 % of the pages), then
 * `done` with the copy's path, what it holds and, on the web door, a download URL. The copy goes
 * into `<dataDir>/exports` under a name of its own (never over an existing file); the desktop app
 * asks where to save it and moves it there once complete (src/main/snapshot-dialog.ts).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { SnapshotJob } from '../../shared/contract';
import { LoupeError } from '../../shared/errors';
import { snapshotArchive } from '../archive';
import { archivePath } from '../paths';
import type { AppParts, Slice } from './parts';

const fmt = (n: number): string => n.toLocaleString('en-US');

interface JobState {
  job: SnapshotJob;
  abort: AbortController;
  done: Promise<void>;
}

export interface Snapshots {
  methods: Slice<'archive'>;
  /** cancel every running copy and wait for each to stop */
  stop(): Promise<void>;
}

export function createSnapshots(parts: Pick<AppParts, 'clock' | 'emit' | 'dataDir' | 'downloadUrl'>): Snapshots {
  const { clock, emit, dataDir } = parts;
  const dir = join(dataDir, 'exports');
  const jobs = new Map<string, JobState>();

  /** the given name (with .db), else a dated one; never a name already taken */
  function target(fileName: string | undefined): string {
    const stamp = new Date(clock.now()).toISOString().slice(0, 16).replace(/[:T]/g, '-');
    const base = fileName ? (extname(fileName) ? fileName : `${fileName}.db`) : `loupe-archive-${stamp}.db`;
    const ext = extname(base);
    const stem = base.slice(0, base.length - ext.length);
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${stem}-${n}${ext}`;
      if (!existsSync(join(dir, name))) return join(dir, name);
    }
  }

  const methods: Slice<'archive'> = {
    async 'archive.snapshot'(i) {
      mkdirSync(dir, { recursive: true });
      const snapshotId = randomUUID();
      const job: SnapshotJob = {
        snapshotId,
        status: 'running',
        pagesDone: 0,
        pages: 0,
        path: null,
        bytes: null,
        counts: null,
        summary: null,
        downloadUrl: null,
        error: null,
      };
      const abort = new AbortController();
      const state: JobState = { job, abort, done: Promise.resolve() };
      jobs.set(snapshotId, state);
      let shown = -1;
      state.done = snapshotArchive(archivePath(dataDir), target(i.fileName), {
        signal: abort.signal,
        clock: () => clock.now(),
        onProgress: ({ done, pages }) => {
          Object.assign(job, { pagesDone: done, pages });
          const pct = pages > 0 ? Math.floor((done / pages) * 100) : 0;
          if (pct === shown) return;
          shown = pct;
          emit({ type: 'snapshot-progress', job: { ...job } });
        },
      }).then(
        (r) => {
          const c = r.counts;
          Object.assign(job, {
            status: 'done',
            path: r.path,
            bytes: r.bytes,
            counts: c,
            summary: `A copy of the archive (${fmt(c.items)} items, ${fmt(c.tags)} tags, ${fmt(c.notes)} notes, ${fmt(c.overrides)} label overrides, ${fmt(c.resultSets)} saved sets, ${fmt(c.watchlists)} watchlists, ${fmt(c.ledgerRows)} ledger rows) is at ${r.path}.`,
            downloadUrl: parts.downloadUrl ? parts.downloadUrl(snapshotId) : null,
          });
          emit({ type: 'snapshot-progress', job: { ...job } });
        },
        (e: unknown) => {
          const cancelled = abort.signal.aborted;
          Object.assign(job, {
            status: cancelled ? 'cancelled' : 'failed',
            error: cancelled ? null : e instanceof LoupeError || e instanceof Error ? e.message : String(e),
          });
          emit({ type: 'snapshot-progress', job: { ...job } });
        },
      );
      emit({ type: 'snapshot-progress', job: { ...job } });
      return { ...job };
    },
    async 'archive.snapshotGet'(i) {
      const s = jobs.get(i.snapshotId);
      return s ? { ...s.job } : null;
    },
    async 'archive.snapshotCancel'(i) {
      const s = jobs.get(i.snapshotId);
      if (!s) return null;
      if (s.job.status === 'running') {
        s.abort.abort();
        await s.done;
      }
      return { ...s.job };
    },
  };

  return {
    methods,
    async stop() {
      for (const s of jobs.values()) if (s.job.status === 'running') s.abort.abort();
      await Promise.allSettled([...jobs.values()].map((s) => s.done));
    },
  };
}
