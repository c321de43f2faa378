/**
 * How `loupe call` and `loupe resume` read a walk page by page through the contract (`walks.next`,
 * src/shared/contract-walk-stream.ts) and what they say about it beyond its summary line (issue
 * 24): rows kept raw because they have no id of their own, a restart that waits for approval, the
 * failure that ends the command.
 */
import type { WalkOutcome, WalkStep } from '../shared/contract';
import { isErrorKind, LoupeError } from '../shared/errors';
import type { CliContext } from './context';
import { ExitError } from './exit';
import type { Io } from './io';
import { interruptOf } from './interrupt';
import { itemsOf, type LineSink } from './line-sink';

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
export function restartNeedsApproval(r: WalkOutcome): void {
  if (r.stopReason !== 'restart_costs') return;
  const why = r.notes.filter((n) => /started again from the first page|re-reads \d+ page/.test(n)).join(' ');
  throw new ExitError('not_approved', `${why} Approve with: loupe resume ${r.walkId} --pay-restart`);
}

/** Why a walk failed or paused, as the error it ends the command with (a 5xx refusal: the service failed, exit 4). */
class WalkFailure extends LoupeError {
  constructor(
    e: NonNullable<WalkOutcome['error']>,
    private readonly status: number | undefined,
  ) {
    super(isErrorKind(e.kind) ? e.kind : 'internal', e.message, { type: e.type, requestId: e.requestId, details: e.details });
    this.name = 'WalkFailure';
  }

  override get exitCode(): number {
    return this.kind === 'api' && this.status !== undefined && this.status >= 500 ? 4 : super.exitCode;
  }
}

export function walkError(e: NonNullable<WalkOutcome['error']>): LoupeError {
  return new WalkFailure(e, e.status);
}

/**
 * Reads a walk started by `walks.stream` / `walks.streamResume` to its end: each page's items
 * written as JSON lines, then `onPage`, then the reader waited for (`sink.settled`) before the
 * next `walks.next` lets the walk ask for its next page. Ctrl-C or SIGTERM (./interrupt.ts), or the output going away (the
 * reader closed the pipe, the disk filled — found by a write between two pages), cancels the walk
 * before its next request (docs/cli.md "Pipes").
 */
export async function readWalk(
  io: Io,
  c: CliContext,
  walkId: string,
  sink: LineSink,
  onPage?: (step: Extract<WalkStep, { kind: 'page' }>) => void,
): Promise<WalkOutcome> {
  let stopping: Promise<unknown> | null = null;
  const stop = (): void => {
    stopping ??= c.call('walks.cancel', { walkId }).catch(() => undefined);
  };
  const off = interruptOf(io).onStop(stop);
  sink.onFail(stop);
  try {
    for (;;) {
      const step = await c.call('walks.next', { walkId });
      if (step.kind === 'end') return step.outcome;
      for (const it of itemsOf(step.envelope)) sink.write(it);
      onPage?.(step);
      await sink.settled(); // the next request waits for the reader (and stops if it left)
    }
  } finally {
    off();
    await stopping;
  }
}
