/** "Watch this": add a target to an existing watchlist, or create one with the budget and depth the user chose. */
import type { Target } from '../../../shared/contract';
import { useWatchMutations } from '../queries/watchlists';
import { useUi } from '../stores/ui';
import { toastError } from '../components/WayOut';
import type { WatchlistForm } from './WatchlistDialog';

export function useWatchThis() {
  const watchlists = useWatchMutations();
  const toast = useUi((s) => s.toast);
  return async (target: Target, label: string, watchlistId: string | null, form?: WatchlistForm) => {
    try {
      if (watchlistId) await watchlists.addWatch({ id: watchlistId, watch: { ...target, label } });
      else {
        const f = form ?? {
          name: label.slice(0, 120),
          everyHours: 24,
          budgetPerRun: null,
          budgetPerMonth: null,
          firstRunPages: 1,
          since: null,
        };
        const params = f.since ? { ...target.params, since: f.since } : target.params;
        await watchlists.create({
          name: f.name.slice(0, 120),
          schedule: f.everyHours ? { everyHours: f.everyHours } : null,
          budgetPerRun: f.budgetPerRun,
          budgetPerMonth: f.budgetPerMonth,
          firstRunPages: f.firstRunPages,
          watches: [{ ...target, params, label }],
        });
      }
      toast('info', `Watching ${label}. Nothing is spent until it runs; runs and budgets are in Watchlists.`);
    } catch (e) {
      toastError(e);
    }
  };
}
