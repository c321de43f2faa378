/**
 * Writes of the account's domains — keys, settings, the balance, the catalogue, the sandbox panel —
 * each refreshing the domains it changes. The key passes through `addKey` straight to the door:
 * never into React state, the query cache or a mutation cache.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { BalanceInfo, SandboxState, Settings } from '../../../shared/contract';
import { api } from '../lib/api';
import { setServiceClock } from '../lib/format';
import { useUi } from '../stores/ui';
import { invalidate, queryKeys } from './keys';

/** credits.refresh (free): the balance goes to the top bar's store. */
export async function refreshBalance(): Promise<BalanceInfo> {
  const b = await api.call('credits.refresh', {});
  useUi.getState().setBalance(b);
  return b;
}

/** settings.get, read now (not from the cache). */
export const readSettings = (): Promise<Settings> => api.call('settings.get', {});

export function accountWrites(qc: QueryClient) {
  return {
    async addKey(name: string, key: string) {
      const r = await api.call('keys.add', { name, key, activate: true });
      invalidate(qc, 'keys', 'app', 'credits', 'settings');
      return r;
    },
    async activateKey(name: string) {
      await api.call('keys.use', { name });
      invalidate(qc, 'keys', 'app', 'credits');
    },
    async retireKey(name: string) {
      await api.call('keys.retire', { name, retiring: true });
      invalidate(qc, 'keys', 'app', 'credits');
    },
    async removeKey(name: string) {
      await api.call('keys.remove', { name });
      invalidate(qc, 'keys', 'app', 'credits');
    },
    /** the Settings view: the connection may change with them (base URL, catalogue, balance) */
    async updateSettings(patch: Partial<Settings>) {
      const next = await api.call('settings.update', patch);
      invalidate(qc, 'settings', 'app', 'catalogue', 'credits');
      return next;
    },
    async setTheme(theme: Settings['theme']) {
      await api.call('settings.update', { theme });
      invalidate(qc, 'settings');
    },
    async reloadCatalogue() {
      await api.call('catalogue.get', { force: true });
      invalidate(qc, 'catalogue');
    },
  };
}

export const useAccountWrites = () => accountWrites(useQueryClient());

/** The Sandbox panel: each change moves the service clock and may change balance, library, watchlists and usage. */
export function useSandboxWrites() {
  const qc = useQueryClient();
  const done = (next: SandboxState) => {
    setServiceClock({ now: next.now, at: next.at, timeScale: next.timeScale });
    qc.setQueryData(queryKeys.method('sandbox.state', {}), next);
    invalidate(qc, 'credits', 'library', 'watchlists', 'usage');
    return next;
  };
  return {
    advance: (seconds: number) => api.call('sandbox.advance', { seconds }).then(done),
    setBalance: (balance: number) => api.call('sandbox.setBalance', { balance }).then(done),
    faults: (rate: number) => api.call('sandbox.faults', { rate }).then(done),
    reset: () => api.call('sandbox.reset', {}).then(done),
  };
}
