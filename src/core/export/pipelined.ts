/**
 * A rid walk's groups through export workers, placed in order (parquet-rids.ts, bundle-tables.ts):
 * up to `cap` groups are in workers' hands (sent, not yet answered) at once, and up to `hold`
 * groups are held (sent and not yet placed: answered ones wait for the groups before them); each
 * answer is placed in the walk's order. A worker that answers null (a row deleted since the walk's
 * snapshot) makes this thread read the rest of the walk's rids first (the snapshot's rows are
 * readable only once every rid was read) and then render that group itself from the snapshot
 * (`here`): nothing is dropped. So does an answer that arrives once something was committed to the
 * archive since the walk's snapshot (RidWalk.current: the worker may have read a row edited since,
 * or another item under a reused rid), and from then on no group is sent: each is rendered here.
 *
 * The next group is sent as soon as an answer arrives, whichever group it answers (issue 26):
 * before, a slot was freed only when the oldest group was placed, so a worker that finished its
 * groups ahead of the oldest one's worker waited for it with nothing in hand.
 */
import type { RidWalk } from '../ports';
import { abortError } from './abort';

export interface Pipeline<T> {
  groupSize: number;
  /** groups in the workers' hands (sent, not answered) at once */
  cap: number;
  /** groups sent and not yet placed (answered ones wait for the groups before them); default `cap`, at least `cap` */
  hold?: number;
  /** a worker's answer for these rids, or null when one of them is no longer in the archive */
  send(rids: number[]): Promise<T | null>;
  /**
   * the group rendered on this thread from the walk's snapshot: asynchronous, giving the event
   * loop a turn at least every YIELD_MS (turns.ts; a group is ~20,000 rows, ~1 s of work), so that the app's
   * main process keeps serving requests, progress and a cancel meanwhile (`takeTurns`)
   */
  here(rids: number[]): Promise<T>;
  place(part: T): Promise<void>;
  /**
   * once every group is handed out (the walk read to its end), called as each answer arrives with
   * the groups still in workers' hands: a worker may be free for other work (bundle-tables.ts)
   */
  walked?(unanswered: number): void;
  signal?: AbortSignal;
}

interface Slot<T> {
  rids: number[];
  answer: Promise<T | null>;
  answered: boolean;
}

/**
 * Every rid of `walk`, from `first` on, in groups. `first`: the walk's first rids, already read —
 * one group or several (the Parquet export reads one group for each worker at once, so that every
 * worker starts before the walk reads the rest of its rids); cut into groups of `groupSize`, as
 * the walk's later rids are, so the groups are the same either way. `ahead` holds the groups not yet
 * handed out: the first rids', then the walk's (or, once a group needed this thread's snapshot, the
 * rest of the walk read ahead). While the workers encode, this thread reads the walk's next group
 * (`readAhead`): the walk's first read past its head reads every other rid (export-rows.ts
 * headThenRest: ~0.1 s at 200k rows, a temporary b-tree for the ties), which would otherwise hold
 * up the next send when an answer comes.
 */
export async function pipelined<T>(walk: RidWalk, first: number[], p: Pipeline<T>): Promise<void> {
  const { groupSize, signal, cap } = p;
  const hold = Math.max(cap, p.hold ?? cap);
  const ahead: number[][] = [];
  for (let i = 0; i < first.length; i += groupSize) ahead.push(first.slice(i, i + groupSize));
  let walking = true;
  const nextGroup = (): number[] | null => {
    const held = ahead.shift();
    if (held) return held;
    if (!walking) return null;
    const g = walk.next(groupSize);
    if (g.length < groupSize) walking = false;
    return g.length > 0 ? g : null;
  };
  const readAhead = (): void => {
    const g = ahead.length === 0 ? nextGroup() : null;
    if (g) ahead.push(g);
  };
  const queue: Array<Slot<T>> = [];
  let unanswered = 0;
  /** set once this call returns or throws: answers that arrive later send nothing */
  let stopped = false;
  /** the loop below, waiting for an answer */
  let wake: (() => void) | null = null;
  /** a failure of the walk or of a send while answers arrive: the loop throws it */
  let failed = null as { error: unknown } | null;
  const fill = (): void => {
    while (!stopped && unanswered < cap && queue.length < hold) {
      const rids = nextGroup();
      if (!rids) break;
      // once the archive changed, no worker's answer is kept: none is asked for
      const slot: Slot<T> = { rids, answer: walk.current() ? p.send(rids) : Promise.resolve(null), answered: false };
      unanswered++;
      const settled = (): void => {
        slot.answered = true;
        unanswered--;
        // the next group goes out now, not when this one's turn to be placed comes; a walk or a
        // send that throws here must end the export, not leave the loop waiting for a wake
        try {
          fill();
          if (!walking && ahead.length === 0 && !stopped) p.walked?.(unanswered);
        } catch (error) {
          failed ??= { error };
        }
        const w = wake;
        wake = null;
        w?.();
      };
      slot.answer.then(settled, settled);
      queue.push(slot);
    }
  };
  try {
    for (;;) {
      if (failed) throw failed.error;
      fill();
      const slot = queue[0];
      if (!slot) break;
      if (signal?.aborted) throw abortError(signal);
      if (!slot.answered) {
        readAhead();
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      queue.shift();
      let part = (await slot.answer) as T | null;
      if (signal?.aborted) throw abortError(signal);
      if (part !== null && !walk.current()) part = null;
      if (part === null) {
        for (let g = walking ? walk.next(groupSize) : []; g.length > 0; g = walk.next(groupSize)) ahead.push(g);
        walking = false;
        part = await p.here(slot.rids);
        if (signal?.aborted) throw abortError(signal);
      }
      await p.place(part);
    }
  } finally {
    stopped = true;
  }
}
