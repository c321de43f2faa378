/** "Watch this": add a target to an existing watchlist or a new one. */
import { useQueryClient } from '@tanstack/react-query';
import type { Target } from '../../../shared/contract';
import { api, errorText } from '../lib/api';
import { invalidate } from '../queries/hooks';
import { useUi } from '../stores/ui';

export function useWatchThis() {
  const qc = useQueryClient();
  const toast = useUi((s) => s.toast);
  return async (target: Target, label: string, watchlistId: string | null) => {
    try {
      if (watchlistId) await api.call('watchlists.addWatch', { id: watchlistId, watch: { ...target, label } });
      else await api.call('watchlists.create', { name: label.slice(0, 120), schedule: { everyHours: 24 }, watches: [{ ...target, label }] });
      invalidate(qc, 'watchlists.');
      toast('info', `Watching ${label}. Runs and budgets are in Watchlists.`);
    } catch (e) {
      toast('error', errorText(e));
    }
  };
}
