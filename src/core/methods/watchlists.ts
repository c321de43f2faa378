/**
 * The contract's `watchlists.*` methods: forwarded to the watchlist service a door hands
 * createApp (`watch: (deps) => WatchService`, e.g. appWatchFactory in src/core/watch); without
 * one every method answers `{ kind: 'not_available' }`.
 */
import type { LoupeEvent, LoupeImpl, Settings } from '../../shared/contract';
import type { ApiCore } from '../api';
import type { Archive } from '../archive';
import { AppError } from '../bridge';
import type { Clock } from '../ports';
import type { SecretStore } from '../secrets';
import type { DomainName, Slice } from './parts';

export type WatchMethodName = DomainName<'watchlists'>;
export type WatchService = { [K in WatchMethodName]: LoupeImpl[K] } & { close?(): void | Promise<void> };
export interface WatchDeps {
  /** the request core of the current service (changes when Settings change the service) */
  api(): Promise<ApiCore>;
  archive: Archive;
  settings(): Settings;
  emit(e: LoupeEvent): void;
  clock: Clock;
  dataDir: string;
  /** brings the service clock up to date where the service's time can be read (the sandbox's) */
  syncClock?(): Promise<void>;
  /** the keychain: the SMTP password of e-mailed alerts (src/core/watch/alert-email.ts) */
  secrets?: SecretStore;
}
const WATCH_METHODS: readonly WatchMethodName[] = [
  'watchlists.list',
  'watchlists.create',
  'watchlists.update',
  'watchlists.remove',
  'watchlists.addWatch',
  'watchlists.estimate',
  'watchlists.run',
  'watchlists.history',
  'watchlists.cancel',
  'watchlists.markSeen',
  'watchlists.planImport',
  'watchlists.import',
  'watchlists.alerts',
  'watchlists.alertsRead',
];

function noWatch(): never {
  throw new AppError('not_available', 'Watchlists are not available yet in this build.');
}

export function watchlistMethods(watchService: WatchService | null): Slice<'watchlists'> {
  return Object.fromEntries(
    WATCH_METHODS.map((m) => [
      m,
      async (input: never) => {
        if (!watchService) noWatch();
        return (watchService[m] as (i: never) => Promise<unknown>)(input);
      },
    ]),
  ) as Slice<'watchlists'>;
}
