/**
 * The typed context a walk's stages share (docs/request-core.md "Walker"): one run of the page loop
 * (walk/index.ts `drive`) — the saved WalkState, this run's counters, the cursors and rows seen in
 * this pass — and the bookkeeping every stage uses: notes, saving, progress events and the result.
 * Built from the walker's internal surface (CoreInternals) only, so a stage runs alone against a
 * scripted core (walk/test-kit.ts). Also what stages hand each other: a `PagePlan`, or a `Stop`.
 */
import type { CatalogueEndpoint } from '../../../shared/api-types';
import type { WalkState } from '../../ports';
import { nativePagingParamOf, paramNames } from '../catalogue';
import { ApiError } from '../errors';
import type { CoreInternals } from '../internals';
import type { WalkOptions, WalkResult } from '../types';
import { positionOf } from './restart';

/** The walk ends here, with this result. */
export type Stop = { stop: WalkResult };
export const isStop = (x: unknown): x is Stop => typeof x === 'object' && x !== null && 'stop' in x;

/** The next request (plan.ts): its params, the pages it asks, what it holds, whether it re-reads a held page. */
export interface PagePlan {
  params: Record<string, string>;
  pagesAsked: number;
  hold: number;
  /** re-reading a page this walk already held, after a restart */
  rereading: boolean;
  /** page number of the request's first page (the position + 1) */
  pageNumber: number;
}

export class WalkDrive {
  /** the walk's fixed params (no position) */
  readonly fixed: Record<string, string>;
  readonly priority: NonNullable<WalkOptions['priority']>;
  /** the entry's native paging parameter, and whether it lists `cursor` too */
  readonly native: string | null;
  readonly listsCursor: boolean;
  /** pages one request may ask where the walker chooses `max_pages` (Pagination rule 8) */
  readonly perRequest: number;
  readonly byMaxPages: boolean;
  /** cursors sent or handed out in this pass (a repeat is never paid for), and rows seen */
  readonly seen = new Set<string>();
  readonly seenIds = new Set<string>();
  newItems = 0;
  unreadable = 0;
  heldBack = 0;
  lastStoppedAt: WalkResult['stoppedAt'] = null;
  lastWalkStopped: string | null = null;
  /** the walk started over in this run; page requests in this run, and since the last (re)start */
  restarted = false;
  requests = 0;
  pass = 0;
  /** the native parameter was tried (one style per walk) */
  triedNative: boolean;
  /** where the last cursor rejection happened (a position); kept per walk in this process when the run stops */
  lastRejectedAt: number | null;
  private readonly memo: { lastRejectedAt: number | null };

  constructor(
    readonly core: CoreInternals,
    readonly ep: CatalogueEndpoint,
    readonly state: WalkState,
    readonly o: WalkOptions,
    readonly notes: string[],
  ) {
    this.fixed = JSON.parse(state.params) as Record<string, string>;
    this.priority = o.priority ?? 'background';
    this.native = nativePagingParamOf(ep);
    this.listsCursor = paramNames(ep).has('cursor');
    this.perRequest = Math.max(1, Math.min(5, o.pagesPerRequest ?? 5));
    this.byMaxPages =
      this.perRequest > 1 && paramNames(ep).has('max_pages') && this.fixed.max_pages === undefined && state.cursorParam !== 'until';
    this.triedNative = state.cursorParam !== 'cursor';
    if (state.cursor !== null) this.seen.add(state.cursor);
    this.memo = core.restarts.get(state.walkId) ?? { lastRejectedAt: null };
    core.restarts.set(state.walkId, this.memo);
    this.lastRejectedAt = this.memo.lastRejectedAt;
  }

  /** The call target of the walk with these params. */
  target(params: Record<string, string>) {
    return { platform: this.state.platform, endpoint: this.state.endpoint, params };
  }

  /** Something the user should hear about: a result note, the log, a `warning` event. */
  note(text: string, code: string): void {
    this.notes.push(text);
    this.core.log(`walk ${this.state.walkId}: ${text}`);
    this.core.events.emit('warning', { code, message: text });
  }

  save(): void {
    try {
      this.core.store.saveWalk(this.state);
    } catch {
      /* the walk's own bookkeeping: a storage failure is reported by the call that hits it */
    }
  }

  progress(): void {
    const { state, o, core } = this;
    const left = o.maxPages !== undefined ? Math.max(0, o.maxPages - positionOf(state)) : null;
    core.events.emit('walk-progress', {
      walkId: state.walkId,
      platform: state.platform,
      endpoint: state.endpoint,
      pagesDone: state.pagesDone,
      maxPages: o.maxPages ?? null,
      creditsSpent: state.creditsSpent,
      itemsSeen: state.itemsSeen,
      newItems: this.newItems,
      status: state.status,
      stopReason: state.stopReason,
      etaMs: left === null ? null : state.status === 'running' ? core.eta(left, this.priority) : 0,
      rewalkAt: state.rewalkAt ?? null,
    });
  }

  /** The walk stops here: saved with its status and reason, a last progress event, the result. */
  finish(status: WalkState['status'], reason: string | null, err?: ApiError): WalkResult {
    const { state, core } = this;
    this.memo.lastRejectedAt = this.lastRejectedAt;
    if (status === 'done') core.restarts.delete(state.walkId);
    state.status = status;
    state.stopReason = reason;
    state.error = err ? err.message : null;
    state.updatedAt = core.clock.now();
    this.save();
    this.progress();
    return {
      walkId: state.walkId,
      status,
      stopReason: reason,
      pagesDone: state.pagesDone,
      creditsSpent: state.creditsSpent,
      itemsSeen: state.itemsSeen,
      newItems: this.newItems,
      cursor: state.cursor,
      stoppedAt: this.lastStoppedAt,
      walkStopped: this.lastWalkStopped,
      unreadable: this.unreadable,
      heldBack: this.heldBack,
      notes: [...this.notes],
      rewalkAt: state.rewalkAt ?? null,
      restarted: this.restarted,
      ...(err ? { error: err } : {}),
      state: { ...state },
    };
  }

  /** A failure of the walk's own preparation (a hold that could not be priced): failed, or thrown when it is not an ApiError. */
  failWith(e: unknown): WalkResult {
    if (e instanceof ApiError) return this.finish('failed', `error:${e.type ?? e.kind.toUpperCase()}`, e);
    throw e;
  }
}
