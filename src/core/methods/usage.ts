/** The contract's `credits.*` and `usage.*` methods: the balance, free calls, the month's spend and the ledger. */
import type { LedgerRow, UsageSummary } from '../../shared/contract';
import type { Archive } from '../archive';
import { parseParams } from './common';
import type { AppParts, Slice } from './parts';

function ledgerRow(e: ReturnType<Archive['listLedger']>[number]): LedgerRow {
  return {
    id: e.id ?? 0,
    at: e.startedAt,
    platform: e.platform,
    endpoint: e.endpoint,
    params: parseParams(e.params),
    status: e.status,
    errorType: e.errorType,
    requestId: e.requestId,
    creditsUsed: e.creditsUsed,
    creditsRemaining: e.creditsRemaining,
    chargeReason: e.chargeReason,
    cached: e.cached,
    freeCall: e.freeCall,
    idempotentReplay: e.idempotentReplay,
    dryRun: e.dryRun,
    fromArchive: false,
    source: e.source,
    durationMs: e.durationMs,
    keyName: e.keyName ?? null,
  };
}

export function usageMethods(parts: Pick<AppParts, 'archive' | 'service' | 'counters'>): Slice<'credits'> & Slice<'usage'> {
  const { archive, service } = parts;
  return {
    async 'credits.get'() {
      return service.balanceInfo();
    },
    async 'credits.refresh'() {
      return service.refreshCredits();
    },
    async 'usage.summary'(i): Promise<UsageSummary> {
      const range = i.since !== undefined ? { since: i.since } : {};
      const u = archive.usageSummary(range);
      return {
        balance: service.balanceInfo(),
        charged: u.charged,
        notCharged: { ...u.notCharged, fromArchive: u.notCharged.fromArchive + parts.counters.fromArchive },
        perDay: archive.creditsPerDay(range),
        perSource: archive.creditsPerSource(range),
        perEndpoint: archive.creditsPerEndpoint(range),
      };
    },
    async 'usage.ledger'(i) {
      return archive.listLedger({ limit: i.limit, beforeId: i.beforeId }).map(ledgerRow);
    },
  };
}
