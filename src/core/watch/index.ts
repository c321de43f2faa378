/**
 * Watchlists (docs/watchlists.md): scheduled, incremental, budgeted monitoring.
 *
 *   const watch = createWatchService({ api, archive, clock, notify, emit });
 *   const l = await watch.create({ name: 'Brands', watches: [{ platform, endpoint, params }], budgetPerRun: 500 });
 *   const run = await watch.run(l.id, { approved: true });
 *
 * `watchContract(service)` gives the contract's `watchlists.*` methods (what src/core/app.ts
 * delegates to); `appWatchFactory()` builds both from the app's parts.
 */
import type { LoupeEvent, LoupeImpl, MethodName, Settings } from '../../shared/contract';
import type { Clock } from '../ports';
import type { ApiCore } from '../api';
import { createWatchService, type WatchArchive, type WatchService, type WatchServiceOptions } from './service';
import { applyImport, planImport, type ImportDeps } from './import';
import { AppError } from '../bridge';
import { inboxMethods, type InboxMethods } from './inbox';
import { alertDeliverer } from './alert-delivery';
import type { PasswordSource } from './alert-email';

export * from './service';
export { SharedBudget } from './budget';
export { newerThan, newestRow, pageRows, stopEvidence, type PageRow } from './page-rows';
export { headParams } from './chain';
export { applyImport, planImport, readAccountLines } from './import';
export { EMAIL_PASSWORD_SECRET, sendTestEmail, type PasswordSource } from './alert-email';
export type { ImportDeps } from './import';

type WatchMethod = Extract<MethodName, `watchlists.${string}`>;

function noInbox(): never {
  throw new AppError('not_available', 'The alert inbox is not available in this build.');
}
export type WatchContract = { [K in WatchMethod]: LoupeImpl[K] } & { close(): Promise<void> };

/**
 * The contract's `watchlists.*` methods over a service (inputs already validated by the door).
 * `imports`: what bulk imports need besides the service (the request core, the ask threshold).
 */
export function watchContract(
  s: WatchService,
  imports?: { api(): Promise<ApiCore>; askAboveCredits?: () => number | null },
  inbox?: InboxMethods,
): WatchContract {
  const importDeps = async (): Promise<ImportDeps> => {
    if (!imports) throw new AppError('not_available', 'Importing accounts is not available in this build.');
    return { service: s, api: await imports.api(), askAboveCredits: imports.askAboveCredits };
  };
  return {
    'watchlists.list': () => s.list(),
    'watchlists.create': (i) => s.create(i),
    'watchlists.update': (i) => s.update(i.id, i.patch),
    'watchlists.remove': (i) => s.remove(i.id),
    'watchlists.addWatch': (i) => s.addWatch(i.id, i.watch),
    'watchlists.estimate': (i) => s.estimate(i.id),
    'watchlists.run': (i) => s.run(i.id, { approved: i.approved ?? false, trigger: i.trigger ?? 'manual' }),
    'watchlists.history': (i) => s.history(i.id),
    'watchlists.cancel': (i) => s.cancel(i.id),
    'watchlists.markSeen': (i) => s.markSeen(i.id),
    'watchlists.planImport': async (i) => planImport(await importDeps(), i),
    'watchlists.import': async (i) => applyImport(await importDeps(), i),
    'watchlists.alerts': (i) => (inbox ? inbox['watchlists.alerts'](i) : noInbox()),
    'watchlists.alertsRead': (i) => (inbox ? inbox['watchlists.alertsRead'](i) : noInbox()),
    close: () => s.close(),
  };
}

/** The parts src/core/app.ts hands a watch factory (its `WatchDeps`). */
export interface AppWatchDeps {
  api(): Promise<ApiCore>;
  archive: WatchArchive;
  settings(): Settings;
  emit(e: LoupeEvent): void;
  clock: Clock;
  dataDir: string;
  syncClock?(): Promise<void>;
  /** the keychain (the SMTP password of e-mailed alerts); absent: no e-mail */
  secrets?: PasswordSource;
}

/**
 * A factory for `createApp({ watch })`: builds the service with the app's parts, starts the
 * scheduler (runs while the app is open) and returns the contract methods.
 */
export function appWatchFactory(
  extra: Partial<Pick<WatchServiceOptions, 'notify' | 'log' | 'maxPagesPerWatch'>> & { scheduler?: boolean } = {},
) {
  return (deps: AppWatchDeps): WatchContract & { service: WatchService } => {
    const store = deps.archive.watchlists;
    const emailDeps = deps.secrets
      ? {
          secrets: deps.secrets,
          alerts: store.alerts,
          listName: (id: string) => store.list(id)?.name ?? '(a removed list)',
          now: () => deps.clock.now(),
        }
      : undefined;
    const service = createWatchService({
      api: deps.api,
      archive: deps.archive,
      clock: deps.clock,
      emit: deps.emit,
      askAboveCredits: () => deps.settings().askAboveCredits,
      syncClock: deps.syncClock,
      deliver: alertDeliverer({ settings: deps.settings, emit: deps.emit, log: extra.log, email: emailDeps }),
      willEmail: () => !!emailDeps && deps.settings().alertEmail !== null,
      ...extra,
    });
    if (extra.scheduler !== false) service.startScheduler();
    const inbox = inboxMethods(deps.archive.watchlists, deps.clock);
    return { ...watchContract(service, { api: deps.api, askAboveCredits: () => deps.settings().askAboveCredits }, inbox), service };
  };
}
