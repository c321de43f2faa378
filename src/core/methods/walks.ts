/**
 * The contract's `walks.*` methods: walks run in the background (`walks.start` answers at once
 * with `status: 'running'`), progress goes out as `walk-progress` events carrying the whole
 * WalkInfo. A walk saved as running that is not running in this process is listed as paused
 * (`stopReason: 'interrupted'`) and can be resumed; resume's limits count MORE pages/credits.
 */
import { randomUUID } from 'node:crypto';
import type { WalkInfo } from '../../shared/contract';
import type { WalkResult } from '../api';
import { normalizeEndpoint } from '../api';
import type { WalkProgress } from '../api';
import { AppError, toBridgeError } from '../bridge';
import type { WalkState } from '../ports';
import { findEndpoint, parseParams, toTarget } from './common';
import type { AppParts, Slice } from './parts';

interface WalkJob {
  info: WalkInfo;
  abort: AbortController;
  done: Promise<void>;
  baseNew: number;
}

export interface Walks {
  /**
   * the walks this process runs in the background (walks.saved, the archive's record of every walk:
   * savedWalkMethods; the walks a caller reads page by page: walk-stream.ts)
   */
  methods: Omit<Slice<'walks'>, 'walks.saved' | 'walks.stream' | 'walks.streamResume' | 'walks.next'>;
  /** the request core's progress of a walk run by this process */
  progress(p: WalkProgress): void;
  anyRunning(): boolean;
  /** abort every running walk and wait for each to save its position */
  stop(): Promise<void>;
}

/** A walk's failure in the terms the UI offers the way out by (kind, the API's type, retryAt). */
function errorFields(e: unknown): Pick<WalkInfo, 'errorKind' | 'errorType' | 'retryAt'> {
  if (!e) return { errorKind: null, errorType: null, retryAt: null };
  const b = toBridgeError(e);
  const retryAt = typeof (e as { retryAt?: unknown }).retryAt === 'number' ? (e as { retryAt: number }).retryAt : null;
  return { errorKind: b.kind, errorType: b.type ?? null, retryAt };
}

/**
 * `walks.saved`: the walks as the archive saved them, in the state their process left them
 * (`interrupted`: its process is gone) — what the command line lists and resumes from.
 */
export function savedWalkMethods(archive: AppParts['archive']): Pick<Slice<'walks'>, 'walks.saved'> {
  return {
    async 'walks.saved'(i) {
      if (i.walkId === undefined) return archive.listWalks();
      const s = archive.getWalk(i.walkId);
      return s ? [s] : [];
    },
  };
}

export function createWalks(parts: Pick<AppParts, 'archive' | 'clock' | 'emit' | 'api'>): Walks {
  const { archive, clock, emit } = parts;
  const walks = new Map<string, WalkJob>();

  function infoOf(s: WalkState): WalkInfo {
    const live = walks.get(s.walkId);
    if (live) return { ...live.info };
    return {
      walkId: s.walkId,
      platform: s.platform,
      endpoint: s.endpoint,
      params: parseParams(s.params),
      source: s.source,
      // interrupted = its process is gone (quit, crash): resumable; running = live in another
      // Loupe process (the CLI, a cron watch run)
      status: s.status === 'interrupted' ? 'paused' : s.status,
      pagesDone: s.pagesDone,
      itemsSeen: s.itemsSeen,
      newItems: 0,
      creditsSpent: s.creditsSpent,
      stopReason: s.status === 'interrupted' ? 'interrupted' : s.stopReason,
      rewalkAt: s.rewalkAt ?? null,
      error: s.error,
      etaMs: null,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
    };
  }

  function settle(job: WalkJob, r: WalkResult): void {
    Object.assign(job.info, {
      status: r.status,
      stopReason: r.stopReason,
      pagesDone: r.pagesDone,
      itemsSeen: r.itemsSeen,
      creditsSpent: r.creditsSpent,
      newItems: job.baseNew + r.newItems,
      unreadable: (job.info.unreadable ?? 0) + r.unreadable,
      rewalkAt: r.rewalkAt,
      notes: [...(job.info.notes ?? []), ...r.notes],
      error: r.error ? r.error.message : null,
      ...errorFields(r.error),
      etaMs: null,
      updatedAt: clock.now(),
    });
    emit({ type: 'walk-progress', walk: { ...job.info } });
  }

  function runWalkJob(info: WalkInfo, baseNew: number, run: (signal: AbortSignal) => Promise<WalkResult>): WalkInfo {
    const abort = new AbortController();
    const job: WalkJob = { info, abort, baseNew, done: Promise.resolve() };
    walks.set(info.walkId, job);
    job.done = run(abort.signal).then(
      (r) => settle(job, r),
      (e: unknown) => {
        const cancelled = abort.signal.aborted;
        Object.assign(job.info, {
          status: cancelled ? 'cancelled' : 'failed',
          stopReason: cancelled ? 'cancelled' : 'error',
          error: e instanceof Error ? e.message : String(e),
          ...(cancelled ? errorFields(undefined) : errorFields(e)),
          etaMs: null,
          updatedAt: clock.now(),
        });
        emit({ type: 'walk-progress', walk: { ...job.info } });
      },
    );
    emit({ type: 'walk-progress', walk: { ...info } });
    return { ...info };
  }

  const methods: Walks['methods'] = {
    async 'walks.start'(i) {
      const core = await parts.api();
      const ep = await findEndpoint(core, i.target);
      const walkId = randomUUID();
      const now = clock.now();
      const info: WalkInfo = {
        walkId,
        platform: i.target.platform,
        endpoint: normalizeEndpoint(i.target.platform, ep.path),
        params: { ...i.target.params },
        source: i.source,
        status: 'running',
        pagesDone: 0,
        itemsSeen: 0,
        newItems: 0,
        creditsSpent: 0,
        stopReason: null,
        error: null,
        etaMs: i.maxPages ? core.pacer.eta(i.maxPages, 'background') : null,
        createdAt: now,
        updatedAt: now,
      };
      return runWalkJob(info, 0, (signal) =>
        core.walk(toTarget(i.target), {
          walkId,
          source: i.source,
          maxPages: i.maxPages,
          maxCredits: i.maxCredits,
          signal,
          priority: 'background',
        }),
      );
    },
    async 'walks.cancel'(i) {
      const job = walks.get(i.walkId);
      if (job && job.info.status === 'running') {
        job.abort.abort();
        await job.done;
        return { ...job.info };
      }
      const s = archive.getWalk(i.walkId);
      if (!s) throw new AppError('not_found', `No walk with id ${i.walkId}.`);
      return infoOf(s);
    },
    async 'walks.resume'(i) {
      const live = walks.get(i.walkId);
      if (live && live.info.status === 'running') return { ...live.info };
      const s = archive.getWalk(i.walkId);
      if (!s) throw new AppError('not_found', `No walk with id ${i.walkId}.`);
      if (s.status === 'done') return infoOf(s);
      const core = await parts.api();
      const prev = infoOf(s);
      // maxPages on resume counts MORE pages ("fetch 5 more"); the walker counts pages in total
      const maxPages = i.maxPages !== undefined ? s.pagesDone + i.maxPages : undefined;
      const maxCredits = i.maxCredits !== undefined ? s.creditsSpent + i.maxCredits : undefined;
      const info: WalkInfo = {
        ...prev,
        status: 'running',
        stopReason: null,
        error: null,
        errorKind: null,
        errorType: null,
        retryAt: null,
        etaMs: maxPages ? core.pacer.eta(maxPages - s.pagesDone, 'background') : null,
        updatedAt: clock.now(),
      };
      return runWalkJob(info, prev.newItems, (signal) =>
        core.resumeWalk(i.walkId, { maxPages, maxCredits, signal, priority: 'background', payRestart: i.payRestart }),
      );
    },
    async 'walks.get'(i) {
      const live = walks.get(i.walkId);
      if (live) return { ...live.info };
      const s = archive.getWalk(i.walkId);
      return s ? infoOf(s) : null;
    },
    async 'walks.list'() {
      const byId = new Map<string, WalkInfo>();
      for (const s of archive.listWalks()) byId.set(s.walkId, infoOf(s));
      for (const [id, j] of walks) byId.set(id, { ...j.info });
      return [...byId.values()].sort((a, b) => b.updatedAt - a.updatedAt);
    },
  };

  return {
    methods,
    progress(p) {
      const job = walks.get(p.walkId);
      if (!job) return;
      Object.assign(job.info, {
        pagesDone: p.pagesDone,
        itemsSeen: p.itemsSeen,
        newItems: job.baseNew + p.newItems,
        creditsSpent: p.creditsSpent,
        etaMs: p.etaMs,
        rewalkAt: p.rewalkAt ?? null,
        updatedAt: clock.now(),
      });
      emit({ type: 'walk-progress', walk: { ...job.info } });
    },
    anyRunning: () => [...walks.values()].some((w) => w.info.status === 'running'),
    async stop() {
      for (const j of walks.values()) if (j.info.status === 'running') j.abort.abort();
      await Promise.allSettled([...walks.values()].map((j) => j.done));
    },
  };
}
