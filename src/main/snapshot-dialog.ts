/**
 * A copy of the archive through the native save dialog (issue 24 #10), as exports do
 * (./export-dialog.ts): the desktop's `archive.snapshot` first asks where to save; the core then
 * writes the copy in its exports folder (complete, checked, under a temporary name until then) and,
 * once it is done, the file is moved to the chosen path — a half-written copy never sits at the
 * user's path. A file the user chose to replace goes with its -wal / -shm (read into the new copy,
 * they would damage it). Job answers and `snapshot-progress` events report the chosen path once
 * the copy is there. Cancelling the dialog makes nothing and answers kind 'cancelled'.
 */
import { rm } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { BaseWindow } from 'electron';
import type { DispatchResult } from '../core/bridge';
import type { LoupeEvent, SnapshotJob } from '../shared/contract';
import { moveFile, type ExportDialogDeps } from './export-dialog';

export function snapshotDialog(d: ExportDialogDeps) {
  /** snapshotId → chosen path; `moved` once the finished copy is there */
  const targets = new Map<string, { path: string; moved: Promise<string> | null }>();
  let lastDir: string | null = null;

  function settle(job: SnapshotJob): Promise<SnapshotJob> {
    const t = targets.get(job.snapshotId);
    if (!t || job.status !== 'done' || !job.path) return Promise.resolve(job);
    const from = job.path;
    t.moved ??= (async () => {
      for (const f of [`${t.path}-wal`, `${t.path}-shm`, `${t.path}-journal`]) await rm(f, { force: true });
      await moveFile(from, t.path);
      return t.path;
    })();
    return t.moved.then(
      (path) => ({ ...job, path, summary: job.summary?.replace(from, path) ?? null }),
      (e: unknown) => ({
        ...job,
        status: 'failed' as const,
        path: from,
        error: `The copy was made at ${from} but could not be moved to ${t.path}: ${e instanceof Error ? e.message : String(e)}`,
      }),
    );
  }

  return {
    /** The desktop's `archive.snapshot`: the save dialog first. */
    async start(input: unknown, window: BaseWindow | null): Promise<DispatchResult> {
      const stamp = (d.now?.() ?? new Date()).toISOString().slice(0, 16).replace(/[:T]/g, '-');
      const chosen = await d.showSaveDialog(window, {
        title: 'Make a copy of the archive',
        buttonLabel: 'Save copy',
        defaultPath: join(lastDir ?? d.defaultDir(), `loupe-archive-${stamp}.db`),
        filters: [{ name: 'Loupe archive (SQLite)', extensions: ['db'] }],
        properties: ['createDirectory', 'showOverwriteConfirmation'],
      });
      if (chosen.canceled || !chosen.filePath)
        return { ok: false, error: { kind: 'cancelled', message: 'No copy was made: no file was chosen.' } };
      let path = chosen.filePath;
      if (!extname(path)) path = `${path}.db`;
      lastDir = dirname(path);
      const i = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
      const r = await d.dispatch('archive.snapshot', { ...i, fileName: basename(path).slice(0, 200) });
      if (r.ok) {
        const job = r.result as SnapshotJob;
        targets.set(job.snapshotId, { path, moved: null });
        return { ok: true, result: await settle(job) };
      }
      return r;
    },
    /** `archive.snapshotGet` answers with the chosen path once the copy is there. */
    async get(input: unknown): Promise<DispatchResult> {
      const r = await d.dispatch('archive.snapshotGet', input);
      if (!r.ok || !r.result) return r;
      return { ok: true, result: await settle(r.result as SnapshotJob) };
    },
    /** Applied to every event on its way to the renderer. */
    transform(ev: LoupeEvent): LoupeEvent | Promise<LoupeEvent> {
      if (ev.type !== 'snapshot-progress' || !targets.has(ev.job.snapshotId) || ev.job.status !== 'done') return ev;
      return settle(ev.job).then((job) => ({ ...ev, job }));
    },
  };
}
