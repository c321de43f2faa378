/**
 * Another process spending on this data folder (issue 24 #7): a cron `loupe watch run`, the CLI or
 * a second window writes the ledger while the app is open, and the balance on screen went stale
 * until a reload (Usage said 4,940 where the service said 4,480). The archive is SQLite in WAL
 * mode: `PRAGMA data_version` moves only when another connection commits, so polling it is cheap
 * (three reads on keys a tick, docs/archive.md "Other writers"). When it moved together with the
 * ledger's last row or the balance reading, `onForeignWrite` runs — the app then re-reads the
 * balance from the service (GET /v1/credits, free) and tells the renderer.
 */
import type { Archive } from './archive';

export interface LedgerWatch {
  /** one look now (the timer calls it); true when another writer was seen */
  check(): boolean;
  stop(): void;
}

export function watchLedger(o: { archive: Pick<Archive, 'ledgerMark'>; everyMs: number; onForeignWrite: () => void }): LedgerWatch {
  let last: ReturnType<Archive['ledgerMark']> | null = null;
  const mark = (): ReturnType<Archive['ledgerMark']> | null => {
    try {
      return o.archive.ledgerMark();
    } catch {
      return null; // the archive is closing, or unreadable for a moment: look again next tick
    }
  };
  last = mark();
  const check = (): boolean => {
    const m = mark();
    if (!m) return false;
    const prev = last;
    last = m;
    // our own writes move the ledger but not data_version: only another connection's commit counts
    if (!prev || m.dataVersion === prev.dataVersion) return false;
    if (m.lastCall === prev.lastCall && m.balanceAt === prev.balanceAt) return false;
    o.onForeignWrite();
    return true;
  };
  const timer = setInterval(check, Math.max(10, o.everyMs));
  timer.unref?.();
  return { check, stop: () => clearInterval(timer) };
}
