/**
 * The contract's walks read page by page (`walks.stream`, `walks.streamResume`, `walks.next`;
 * src/shared/contract-walk-stream.ts): the command line's `loupe call` and `loupe resume`.
 *
 * The walk runs in the request core as every walk does (archive, ledger, saved cursor); after each
 * page it waits until its caller asks for the next one (`walks.next`) — the page's promise the
 * walker awaits before its next request (backpressure). `cancel` aborts the walk's signal first
 * and then lets the walker go on, so it stops before its next request; the page whose items the
 * caller was writing is already paid for, recorded and archived, and the walk is saved `cancelled`
 * with its cursor (resumable). A walk that throws makes `walks.next` throw that error.
 */
import { randomUUID } from 'node:crypto';
import type { WalkOutcome, WalkStep } from '../../shared/contract';
import type { ApiCore, WalkPage, WalkResult } from '../api';
import { AppError, toBridgeError } from '../bridge';
import type { AppParts, Slice } from './parts';
import { toTarget } from './common';
import { createWalks as createBackgroundWalks, type Walks } from './walks';

type StreamMethods = Pick<Slice<'walks'>, 'walks.stream' | 'walks.streamResume' | 'walks.next'>;

/** Every walk of the app: the background ones (walks.ts) and the ones read page by page (here). */
export type AllWalks = Omit<Walks, 'methods'> & { methods: Walks['methods'] & StreamMethods };

export interface WalkStreams {
  methods: StreamMethods;
  /** stops a walk read page by page before its next request; false when no such walk runs here */
  cancel(walkId: string): Promise<boolean>;
  /** stops every one and waits for each to save its position */
  stop(): Promise<void>;
}

type Next = WalkStep | { thrown: unknown };

interface StreamJob {
  steps: Next[];
  /** the caller waiting in walks.next for the next step */
  waiting: ((n: Next) => void) | null;
  /** lets the walker go on to its next request (the caller asked for the next page) */
  release: (() => void) | null;
  abort: AbortController;
  done: Promise<void>;
}

/** A walk's result in the contract's terms (the error serialised, with a refusal's HTTP status). */
export function outcomeOf(r: WalkResult, balance: number | null): WalkOutcome {
  const status = typeof r.error?.status === 'number' ? { status: r.error.status } : {};
  return {
    walkId: r.walkId,
    status: r.status,
    stopReason: r.stopReason,
    pagesDone: r.pagesDone,
    creditsSpent: r.creditsSpent,
    itemsSeen: r.itemsSeen,
    newItems: r.newItems,
    unreadable: r.unreadable,
    notes: [...r.notes],
    error: r.error ? { ...toBridgeError(r.error), ...status } : null,
    balance,
  };
}

function push(job: StreamJob, n: Next): void {
  const w = job.waiting;
  job.waiting = null;
  if (w) w(n);
  else job.steps.push(n);
}

/** Lets the walker go on to its next request. */
function letGo(job: StreamJob): void {
  const r = job.release;
  job.release = null;
  r?.();
}

type Run = (o: { signal: AbortSignal; onPage: (p: WalkPage) => Promise<void> }) => Promise<WalkResult>;

/** Starts `run` with the page hook and the signal, as the job of `walkId`; answers at once. */
function openJob(jobs: Map<string, StreamJob>, walkId: string, core: ApiCore, pages: number | undefined, run: Run): { walkId: string } {
  if (jobs.has(walkId)) throw new AppError('validation', `Walk ${walkId} is already being read.`);
  const job: StreamJob = { steps: [], waiting: null, release: null, abort: new AbortController(), done: Promise.resolve() };
  jobs.set(walkId, job);
  const onPage = (p: WalkPage): Promise<void> => {
    const left = pages !== undefined ? Math.max(0, pages - p.pageNumber) : null;
    const etaMs = left !== null ? core.pacer.eta(left, 'interactive') : null;
    push(job, { kind: 'page', walkId: p.walkId, pageNumber: p.pageNumber, envelope: p.result.envelope, etaMs });
    // the next request waits for the caller's next walks.next (or a cancel)
    return new Promise<void>((resolve) => (job.release = resolve));
  };
  job.done = run({ signal: job.abort.signal, onPage }).then(
    (r) => push(job, { kind: 'end', outcome: outcomeOf(r, core.balance()) }),
    (e: unknown) => push(job, { thrown: e }),
  );
  return { walkId };
}

/** The job's next step (waiting for it); the job is forgotten at its end. */
async function nextStep(jobs: Map<string, StreamJob>, walkId: string): Promise<WalkStep> {
  const job = jobs.get(walkId);
  if (!job) throw new AppError('not_found', `No walk ${walkId} is being read page by page here.`);
  letGo(job); // the caller is done with the last page: the walker may ask for the next one
  const n = job.steps.shift() ?? (await new Promise<Next>((resolve) => (job.waiting = resolve)));
  if ('thrown' in n) {
    jobs.delete(walkId);
    throw n.thrown;
  }
  if (n.kind === 'end') jobs.delete(walkId);
  return n;
}

export function createWalkStreams(parts: Pick<AppParts, 'archive' | 'api'>): WalkStreams {
  const jobs = new Map<string, StreamJob>();
  const methods: StreamMethods = {
    async 'walks.stream'(i) {
      const core = await parts.api();
      const walkId = randomUUID();
      const { maxPages, maxCredits, fresh, source } = i;
      return openJob(jobs, walkId, core, maxPages, (o) =>
        core.walk(toTarget(i.target), { walkId, source, priority: 'interactive', maxPages, maxCredits, fresh, ...o }),
      );
    },
    async 'walks.streamResume'(i) {
      const s = parts.archive.getWalk(i.walkId);
      if (!s) throw new AppError('not_found', `No walk ${i.walkId} in this archive.`);
      const core = await parts.api();
      // the limits count MORE pages / credits than the walk has done (as walks.resume's)
      const maxPages = i.maxPages !== undefined ? s.pagesDone + i.maxPages : undefined;
      const maxCredits = i.maxCredits !== undefined ? s.creditsSpent + i.maxCredits : undefined;
      return openJob(jobs, i.walkId, core, undefined, (o) =>
        core.resumeWalk(i.walkId, { source: s.source, priority: 'interactive', maxPages, maxCredits, payRestart: i.payRestart, ...o }),
      );
    },
    'walks.next': (i) => nextStep(jobs, i.walkId),
  };
  return {
    methods,
    async cancel(walkId) {
      const job = jobs.get(walkId);
      if (!job) return false;
      job.abort.abort(); // first: the walker sees it before its next request
      letGo(job);
      await job.done;
      return true;
    },
    async stop() {
      for (const job of jobs.values()) {
        job.abort.abort();
        letGo(job);
      }
      await Promise.allSettled([...jobs.values()].map((j) => j.done));
    },
  };
}

/**
 * Every walk of the app: the background walks (walks.ts) with the walks read page by page;
 * `walks.cancel` stops either kind (a walk read page by page answers as the archive saved it).
 */
export function createWalks(parts: Pick<AppParts, 'archive' | 'clock' | 'emit' | 'api'>): AllWalks {
  const base = createBackgroundWalks(parts);
  const streams = createWalkStreams(parts);
  return {
    ...base,
    methods: {
      ...base.methods,
      ...streams.methods,
      async 'walks.cancel'(i) {
        const info = (await streams.cancel(i.walkId)) ? await base.methods['walks.get'](i) : null;
        return info ?? base.methods['walks.cancel'](i);
      },
    },
    async stop() {
      await Promise.all([base.stop(), streams.stop()]);
    },
  };
}
