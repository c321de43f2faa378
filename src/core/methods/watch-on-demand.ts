/**
 * The watchlist service of a door that runs one command and ends (the command line), handed to
 * the composition (createApp's `watch`, compose.ts re-exports it): the same service as the app's
 * (appWatchFactory) without the scheduler — a command runs once — and built on the first
 * watchlist call, so only `loupe watch …` does the service's start-up housekeeping (closing runs
 * left 'running' by a process that stopped). In a read-only archive that housekeeping is skipped;
 * it happens the next time a writable Loupe opens the archive. Its runs are the contract's
 * (`watchlists.run` with trigger 'cli'; their progress as `watch-run` events).
 */
import type { WatchStore } from '../archive';
import { appWatchFactory, type WatchArchive } from '../watch';
import type { WatchDeps, WatchMethodName, WatchService } from './watchlists';

/** every `watchlists.*` method (the record fails to type-check when the contract gains one) */
const METHODS: Record<WatchMethodName, true> = {
  'watchlists.list': true,
  'watchlists.create': true,
  'watchlists.update': true,
  'watchlists.remove': true,
  'watchlists.addWatch': true,
  'watchlists.estimate': true,
  'watchlists.run': true,
  'watchlists.history': true,
  'watchlists.cancel': true,
  'watchlists.markSeen': true,
  'watchlists.planImport': true,
  'watchlists.import': true,
  'watchlists.alerts': true,
  'watchlists.alertsRead': true,
};

/** The watchlist tables without the start-up cleanup (the rest goes to the tables as they are). */
function withoutStaleRunCleanup(store: WatchStore): WatchStore {
  return Object.create(store, { closeStaleRuns: { value: () => 0 } }) as WatchStore;
}

/** A watchlist service built on its first call, without the scheduler (see the header). */
export function onDemandWatchFactory(): (deps: WatchDeps) => WatchService {
  let built: ReturnType<ReturnType<typeof appWatchFactory>> | null = null;
  return (deps) => {
    const build = () => {
      if (built) return built;
      const a = deps.archive;
      const archive: WatchArchive = a.readonly
        ? {
            watchlists: withoutStaleRunCleanup(a.watchlists),
            getWalk: (id) => a.getWalk(id),
            saveWalk: (w) => a.saveWalk(w),
            findJournal: (k) => a.findJournal(k),
          }
        : a;
      built = appWatchFactory({ scheduler: false })({ ...deps, archive });
      return built;
    };
    const lazy = Object.fromEntries(
      (Object.keys(METHODS) as WatchMethodName[]).map((m) => [m, (input: never) => (build()[m] as (i: never) => Promise<unknown>)(input)]),
    ) as Omit<WatchService, 'close'>;
    return { ...lazy, close: async () => void (await built?.close()) } as WatchService;
  };
}
