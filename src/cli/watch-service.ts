/**
 * The CLI's watchlist service, handed to the composition (createApp's `watch`): the same service
 * as the app's (appWatchFactory, src/core/watch) without the scheduler — a command runs once — and
 * built on the first watchlist call, so only `loupe watch …` does the service's start-up
 * housekeeping (closing runs left 'running' by a process that stopped). In a read-only archive
 * that housekeeping is skipped; it happens the next time a writable Loupe opens the archive.
 */
import type { WatchDeps, WatchMethodName, WatchService } from '../core/app';
import type { WatchStore } from '../core/archive';
import { appWatchFactory, type WatchArchive, type WatchService as CoreWatchService } from '../core/watch';

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

export interface CliWatch {
  /** for createApp({ watch }) */
  factory(deps: WatchDeps): WatchService;
  /** the service itself (`loupe watch run` runs with trigger 'cli'); built on first use */
  service(): CoreWatchService;
}

export function cliWatch(): CliWatch {
  let deps: WatchDeps | null = null;
  let built: ReturnType<ReturnType<typeof appWatchFactory>> | null = null;
  const build = () => {
    if (built) return built;
    if (!deps) throw new Error('The watchlist service is used before the app is composed.');
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
  return {
    factory(d) {
      deps = d;
      const lazy = Object.fromEntries(
        (Object.keys(METHODS) as WatchMethodName[]).map((m) => [
          m,
          (input: never) => (build()[m] as (i: never) => Promise<unknown>)(input),
        ]),
      ) as Omit<WatchService, 'close'>;
      return { ...lazy, close: async () => void (await built?.close()) } as WatchService;
    },
    service: () => build().service,
  };
}
