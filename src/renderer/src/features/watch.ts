/** "Watch this": add a target to an existing watchlist, or create one with the budget and depth the user chose. */
import { useQueryClient } from '@tanstack/react-query';
import type { Target } from '../../../shared/contract';
import { api } from '../lib/api';
import { invalidate } from '../queries/hooks';
import { useUi } from '../stores/ui';
import { toastError } from '../components/WayOut';
import type { WatchlistForm } from './WatchlistDialog';

export function useWatchThis() {
  const qc = useQueryClient();
  const toast = useUi((s) => s.toast);
  return async (target: Target, label: string, watchlistId: string | null, form?: WatchlistForm) => {
    try {
      if (watchlistId) await api.call('watchlists.addWatch', { id: watchlistId, watch: { ...target, label } });
      else {
        const f = form ?? { name: label.slice(0, 120), everyHours: 24, budgetPerRun: null, budgetPerMonth: null, firstRunPages: 1, since: null };
        const params = f.since ? { ...target.params, since: f.since } : target.params;
        await api.call('watchlists.create', {
          name: f.name.slice(0, 120),
          schedule: f.everyHours ? { everyHours: f.everyHours } : null,
          budgetPerRun: f.budgetPerRun,
          budgetPerMonth: f.budgetPerMonth,
          firstRunPages: f.firstRunPages,
          watches: [{ ...target, params, label }],
        });
      }
      invalidate(qc, 'watchlists.');
      toast('info', `Watching ${label}. Nothing is spent until it runs; runs and budgets are in Watchlists.`);
    } catch (e) {
      toastError(e);
    }
  };
}
