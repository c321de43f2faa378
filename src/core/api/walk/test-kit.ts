/**
 * Test kit for the walk's stages (walk/*.test.ts, not shipped): a scripted core — the walker's
 * internal surface (CoreInternals) over an in-memory store and an instant clock, whose `call`
 * answers from a script and records what each request asked — so every stage, and the loop, runs
 * on its own against scripted answers, no HTTP and no request core.
 */
import type { CatalogueEndpoint } from '../../../shared/api-types';
import type { CallTarget, WalkState } from '../../ports';
import { canonicalParams } from '../canonical';
import { holdOf } from '../catalogue';
import { Emitter } from '../events';
import type { CoreInternals } from '../internals';
import { successEnvelope } from '../test-envelope';
import { InstantClock, MemoryStore, testCatalogue } from '../test-helpers';
import type { ApiEvents, CallOptions, CallResult, WalkOptions } from '../types';
import { WalkDrive, type PagePlan } from './context';

const cat = testCatalogue();
const entry = (path: string): CatalogueEndpoint => {
  const ep = cat.endpoints.find((e) => e.path.endsWith(path));
  if (!ep) throw new Error(`no test entry ${path}`);
  return ep;
};
/** photo_net profile/posts: metered 20–340, max_pages, since / stop_at_id, a 6-hour window */
export const POSTS = entry('photo_net/profile/posts');
/** video_net search/hashtag: lists only its native paging parameter (continuationToken) */
export const NATIVE_ONLY = entry('video_net/search/hashtag');

/** One scripted answer: a page as the core returns it, or a failure it throws. */
export type Scripted = CallResult | Error;

export interface WalkKit {
  core: CoreInternals & { store: MemoryStore; clock: InstantClock };
  /** what each request asked, in order */
  calls: Array<{ params: Record<string, string>; opts: CallOptions }>;
  /** the answers `call` gives, in order (a call past the end fails the test) */
  script: Scripted[];
  warnings: Array<{ code: string; message: string }>;
  progress: Array<ApiEvents['walk-progress']>;
}

export function walkKit(o: { balance?: number | null; ep?: CatalogueEndpoint } = {}): WalkKit {
  const events = new Emitter<ApiEvents>();
  const calls: WalkKit['calls'] = [];
  const script: Scripted[] = [];
  const call = async (t: CallTarget, opts: CallOptions = {}): Promise<CallResult> => {
    calls.push({ params: { ...t.params }, opts });
    const next = script.shift();
    if (next === undefined) throw new Error(`no answer scripted for request ${calls.length}`);
    if (next instanceof Error) throw next;
    return next;
  };
  const core: WalkKit['core'] = {
    clock: new InstantClock(),
    store: new MemoryStore(),
    events,
    log: () => {},
    call: call as CoreInternals['call'],
    endpoint: async () => o.ep ?? POSTS,
    holdOf: async (ep, t) => holdOf(ep, t.params),
    quote: async () => {
      throw new Error('no quote scripted');
    },
    restarts: new Map(),
    balance: () => o.balance ?? null,
    eta: () => 0,
  };
  const k: WalkKit = { core, calls, script, warnings: [], progress: [] };
  events.on('warning', (w) => k.warnings.push(w));
  events.on('walk-progress', (p) => k.progress.push(p));
  return k;
}

/** A walk's saved state (photo_net profile/posts of `a`, nothing done yet) with some fields set. */
export const walkState = (over: Partial<WalkState> = {}): WalkState => ({
  walkId: 'w',
  platform: 'photo_net',
  endpoint: 'profile/posts',
  params: canonicalParams({ handle: 'a' }),
  cursorParam: 'cursor',
  cursor: null,
  pagesDone: 0,
  creditsSpent: 0,
  itemsSeen: 0,
  status: 'running',
  stopReason: null,
  source: 'walk',
  createdAt: 0,
  updatedAt: 0,
  error: null,
  ...over,
});

/** The run's context over a kit's core. */
export const driveOf = (k: WalkKit, s: WalkState, o: WalkOptions = {}, ep: CatalogueEndpoint = POSTS) =>
  new WalkDrive(k.core, ep, s, o, []);

export const planOf = (over: Partial<PagePlan> = {}): PagePlan => ({
  params: { handle: 'a' },
  pagesAsked: 1,
  hold: 340,
  rereading: false,
  pageNumber: 1,
  ...over,
});

export interface PageOpts {
  /** pagination.has_more (default: a cursor was given) */
  more?: boolean;
  stoppedAt?: 'since' | 'known_id' | 'end' | null;
  /** data.walk.stopped of a max_pages request */
  walkStopped?: string;
  credits?: number;
  /** rows the core archived as new (default: every readable row) */
  newItems?: number;
  heldBack?: number;
  fromArchive?: boolean;
  data?: Record<string, unknown>;
}

/** A post row; `pinned` null is an unknown pin state (trim=true). */
export const post = (id: string, published_at: string | null = null, pinned: boolean | null = false) => ({
  post: { id, published_at, flags: { pinned } },
});

/** An answered page of rows (ids, or rows as `post` builds them, or raw rows) and its pagination. */
export function pageOf(rows: Array<string | Record<string, unknown>>, next: string | null, o: PageOpts = {}): CallResult {
  const items = rows.map((r) => (typeof r === 'string' ? post(r) : r));
  const readable = items.filter((it) => typeof (it as { post?: { id?: unknown } }).post?.id === 'string').length;
  const pagination = {
    next_cursor: next,
    has_more: o.more ?? next !== null,
    page_size: items.length,
    ...(o.stoppedAt !== undefined ? { stopped_at: o.stoppedAt } : {}),
  };
  const data = { items, ...(o.walkStopped ? { walk: { stopped: o.walkStopped } } : {}), ...o.data };
  const envelope = {
    ...successEnvelope('photo_net', 'profile/posts', data, {
      credits_used: o.credits ?? 20,
      credits_remaining: 10_000,
      request_id: 'req_w',
    }),
    pagination,
  };
  return {
    envelope,
    fromArchive: o.fromArchive ?? false,
    callId: 'c',
    idempotencyKey: null,
    attempts: 1,
    creditsUsed: o.credits ?? 20,
    creditsInferred: 0,
    items: [],
    newItems: o.newItems ?? readable,
    unreadable: items.length - readable,
    heldBack: o.heldBack ?? 0,
  };
}
