/**
 * Export through the native save dialog. In the desktop app `export.start` first asks where to
 * save (the OS dialog, with the format's extension and an overwrite confirmation); the core then
 * writes the file in its exports folder as usual (streaming, on its worker threads) and, once it is
 * complete, the file is moved to the chosen path — so a half-written file never sits at the
 * user's path. Job answers and `export-progress` events report the chosen path once it is there.
 * Cancelling the dialog starts nothing and answers kind 'cancelled'.
 */
import { copyFile, mkdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { BaseWindow, SaveDialogOptions, SaveDialogReturnValue } from 'electron';
import type { DispatchResult } from '../core/bridge';
import type { ExportJob, LoupeEvent } from '../shared/contract';

const FILTERS: Record<string, { name: string; extensions: string[] }> = {
  csv: { name: 'CSV (spreadsheets)', extensions: ['csv'] },
  json: { name: 'JSON', extensions: ['json'] },
  jsonl: { name: 'JSON Lines', extensions: ['jsonl'] },
};

export interface ExportDialogDeps {
  showSaveDialog(window: BaseWindow | null, options: SaveDialogOptions): Promise<SaveDialogReturnValue>;
  dispatch(method: string, input: unknown): Promise<DispatchResult>;
  /** where the dialog opens the first time (the user's Documents folder) */
  defaultDir(): string;
  now?: () => Date;
}

/** Moves a file, across file systems too. */
export async function moveFile(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await copyFile(from, to);
    await unlink(from);
  }
}

export function exportDialog(d: ExportDialogDeps) {
  /** exportId → chosen path; `moved` once the finished file is there */
  const targets = new Map<string, { path: string; moved: Promise<string> | null }>();
  let lastDir: string | null = null;

  function suggestedName(input: Record<string, unknown>, format: string): string {
    const given = typeof input.fileName === 'string' && input.fileName ? input.fileName : null;
    if (given) return extname(given) ? given : `${given}.${format}`;
    const stamp = (d.now?.() ?? new Date()).toISOString().slice(0, 16).replace(/[:T]/g, '-');
    return `loupe-export-${stamp}.${format}`;
  }

  const withPath = (job: ExportJob): ExportJob => {
    const t = targets.get(job.exportId);
    return t && job.status === 'done' ? { ...job, path: t.path } : job;
  };

  /** finish: once the core's file is complete, move it to the chosen path (once). */
  function settle(job: ExportJob): Promise<ExportJob> {
    const t = targets.get(job.exportId);
    if (!t || job.status !== 'done' || !job.path) return Promise.resolve(job);
    const from = job.path;
    t.moved ??= moveFile(from, t.path).then(() => t.path);
    return t.moved.then(
      (path) => ({ ...job, path }),
      (e: unknown) => ({
        ...job,
        status: 'failed' as const,
        path: from,
        error: `The export was written to ${from} but could not be moved to ${t.path}: ${e instanceof Error ? e.message : String(e)}`,
      }),
    );
  }

  return {
    /** The desktop's `export.start`: the save dialog first. */
    async start(input: unknown, window: BaseWindow | null): Promise<DispatchResult> {
      const i = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
      const format = typeof i.format === 'string' && FILTERS[i.format] ? i.format : null;
      if (!format) return d.dispatch('export.start', input); // the core explains what is wrong
      const chosen = await d.showSaveDialog(window, {
        title: 'Export',
        buttonLabel: 'Export',
        defaultPath: join(lastDir ?? d.defaultDir(), suggestedName(i, format)),
        filters: [FILTERS[format]],
        properties: ['createDirectory', 'showOverwriteConfirmation'],
      });
      if (chosen.canceled || !chosen.filePath)
        return { ok: false, error: { kind: 'cancelled', message: 'Export cancelled: no file was chosen.' } };
      let path = chosen.filePath;
      if (!extname(path)) path = `${path}.${format}`;
      lastDir = dirname(path);
      const { fileName: _ignored, ...rest } = i;
      const r = await d.dispatch('export.start', { ...rest, fileName: basename(path).slice(0, 200) });
      if (r.ok) {
        const job = r.result as ExportJob;
        targets.set(job.exportId, { path, moved: null });
        return { ok: true, result: await settle(job) };
      }
      return r;
    },
    /** `export.get` answers with the chosen path once the file is there. */
    async get(input: unknown): Promise<DispatchResult> {
      const r = await d.dispatch('export.get', input);
      if (!r.ok || !r.result) return r;
      return { ok: true, result: withPath(await settle(r.result as ExportJob)) };
    },
    /** Applied to every event on its way to the renderer. */
    transform(ev: LoupeEvent): LoupeEvent | Promise<LoupeEvent> {
      if (ev.type !== 'export-progress' || !targets.has(ev.job.exportId) || ev.job.status !== 'done') return ev;
      return settle(ev.job).then((job) => ({ ...ev, job }));
    },
    targetOf(exportId: string): string | null {
      return targets.get(exportId)?.path ?? null;
    },
  };
}
