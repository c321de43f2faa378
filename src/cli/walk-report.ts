/**
 * What `loupe call` and `loupe resume` say about a walk beyond its summary line (issue 24): rows
 * kept raw because they have no id of their own, and a restart that waits for approval.
 */
import type { WalkResult } from '../core/api';
import { ExitError } from './exit';
import type { Io } from './io';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Rows of a walk (or `record(s)` of one answer) without an id of their own: kept raw, said on stderr. */
export function unreadableLine(io: Io, n: number, single = false): void {
  if (n <= 0) return;
  io.stderr.write(
    single
      ? `${fmt(n)} record(s) of the answer have no id of their own; they are kept raw in the stored answer, not archived as items.\n`
      : `${fmt(n)} item(s) could not be read as records (no id of their own); they are kept raw in the stored answers, not archived as items.\n`,
  );
}

/** A walk that started over stopped before re-reading held pages at a price: what and how to approve (exit 5). */
export function restartNeedsApproval(r: WalkResult): void {
  if (r.stopReason !== 'restart_costs') return;
  const why = r.notes.filter((n) => /started again from the first page|re-reads \d+ page/.test(n)).join(' ');
  throw new ExitError('not_approved', `${why} Approve with: loupe resume ${r.walkId} --pay-restart`);
}
