/** The contract's `credits.*` and `usage.*` methods: the balance, free calls, the month's spend and the ledger. */
import type { UsageSummary } from '../../shared/contract';
import { balanceFigure } from '../api';
import type { AppParts, Slice } from './parts';
import { perSourceInWords } from './usage-words';

export function usageMethods(parts: Pick<AppParts, 'archive' | 'service' | 'api'>): Slice<'credits'> & Slice<'usage'> {
  const { archive, service } = parts;
  return {
    async 'credits.get'() {
      return service.balanceInfo();
    },
    async 'credits.refresh'() {
      return service.refreshCredits();
    },
    async 'credits.answer'() {
      return (await parts.api()).credits();
    },
    async 'credits.reconcile'(i) {
      const report = archive.reconcileLedger({ since: i.since });
      const live = balanceFigure(await (await parts.api()).credits());
      const agree = report.gaps.length === 0 && (report.expectedBalance === null || live === null || live === report.expectedBalance);
      return { ...report, live, agree };
    },
    async 'usage.summary'(i): Promise<UsageSummary> {
      const range = i.since !== undefined ? { since: i.since } : {};
      const u = archive.usageSummary(range);
      return {
        balance: service.balanceInfo(),
        charged: u.charged,
        notCharged: u.notCharged,
        perDay: archive.creditsPerDay(range),
        perSource: perSourceInWords(archive.creditsPerSource(range), (id) => archive.watchlists.list(id)?.name),
        perEndpoint: archive.creditsPerEndpoint(range),
      };
    },
    async 'usage.ledger'(i) {
      return archive.listLedger({ limit: i.limit, beforeId: i.beforeId });
    },
  };
}
