/**
 * The balance (docs/request-core.md "Pipeline of one call", step 4): the last known figure, kept
 * in memory and persisted from every answer that carries `credits_remaining` (older answers
 * finishing late do not overwrite newer ones), and `GET /v1/credits` (free, not rate counted).
 */
import { readingTime, type Clock, type CoreStore, type FreeMark } from '../../ports';
import { isStorageError } from '../../storage-error';
import { balanceFigure } from '../balance-book';
import type { Emitter } from '../events';
import type { ApiEvents } from '../types';
import type { MetaGet } from './meta';

export interface Balance {
  /** last known balance, or null */
  balance: () => number | null;
  noteBalance: (v: number | null | undefined, at: number) => void;
  /** GET /v1/credits: its fields (the spec does not show them), the balance noted */
  credits: () => Promise<Record<string, unknown>>;
  /** the balance now, or null when it cannot be read */
  readBalance: () => Promise<number | null>;
  /** unknown balance (first call ever): ask /v1/credits once */
  probeBalance: () => Promise<void>;
  /** introductory free calls left, when /v1/credits says (a field the spec does not show), else null */
  freeCallsLeft: () => number | null;
  /** the same with when it was said and the ledger's last row then (what a lost answer's free call is judged by), else null */
  freeMark: () => FreeMark | null;
}

export function createBalance(d: { store: CoreStore; clock: Clock; events: Emitter<ApiEvents>; meta: MetaGet }): Balance {
  let mem: { creditsRemaining: number; at: number } | undefined;
  let probe: Promise<void> | undefined;
  let freeLeft: number | null = null;
  let freeMark: FreeMark | null = null;
  let unkeptSaid = false;
  const balance = (): number | null => {
    if (mem) return mem.creditsRemaining;
    const b = d.store.getBalance();
    if (b) mem = b;
    return b ? b.creditsRemaining : null;
  };
  const noteBalance = (v: number | null | undefined, at: number): void => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return;
    if (mem && mem.at > at) return; // an older answer finishing late (`at` on this computer's clock: readingTime)
    mem = { creditsRemaining: v, at };
    d.store.setBalance(v, at);
    d.events.emit('balance', { creditsRemaining: v, at });
  };
  const credits = async (): Promise<Record<string, unknown>> => {
    const j = await d.meta('credits', true);
    const obj = (j && typeof j === 'object' ? j : {}) as Record<string, unknown>;
    const b = balanceFigure(obj);
    // a free reading is answered even when the archive cannot keep it (a full disk): the figure is
    // kept in memory and the failure said once; a charged answer's balance still fails its call
    if (b !== null)
      try {
        noteBalance(b, readingTime(d.clock));
      } catch (e) {
        if (!isStorageError(e)) throw e;
        if (!unkeptSaid)
          d.events.emit('warning', {
            code: 'balance_not_kept',
            message: `the balance the service answered (${b}) is shown but could not be kept: ${e.message.replace(/;[^]*$/, '')}.`,
          });
        unkeptSaid = true;
      }
    const free = obj.free_calls_remaining ?? (obj.data as Record<string, unknown> | undefined)?.free_calls_remaining;
    if (typeof free === 'number' && Number.isFinite(free)) {
      freeLeft = free;
      // taken when the answer came: an attempt started after it was sent after the service counted
      // them, and the free answers the ledger records after this row each used one of them
      try {
        freeMark = { left: free, at: d.clock.now(), ledgerId: d.store.ledgerHighWater() };
      } catch (e) {
        if (!isStorageError(e)) throw e;
      }
    }
    return obj;
  };
  return {
    balance,
    noteBalance,
    credits,
    freeCallsLeft: () => freeLeft,
    freeMark: () => freeMark,
    readBalance: async () => {
      try {
        return balanceFigure(await credits());
      } catch {
        return null;
      }
    },
    probeBalance: async () => {
      probe ??= credits().then(
        () => undefined,
        () => undefined,
      );
      await probe;
    },
  };
}
