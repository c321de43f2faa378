/**
 * Ctrl-C (SIGINT) and SIGTERM while a command runs (docs/cli.md "Stopping a command"). The first
 * signal asks the command to stop through the same path a cancelled walk takes: nothing new is
 * sent, the request in flight is not aborted (the service may finish and charge it) — its answer
 * is awaited for the request core's grace, recorded in the ledger and archived; an answer that
 * does not come in time stays pending in the journal, for the next run of the same request to
 * take over. The command then ends with one line saying what was spent and how to go on, and the
 * run exits 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as Unix tools do.
 *
 * A command that has registered no way to stop (it spends nothing: library, analyze, a plan) ends
 * at once; so does any command at the second signal (whatever is in flight is left to the journal).
 */
import type { Io, SignalSource, StopSignal } from './io';

/** 128 + the signal's number: the exit status of a Unix tool stopped by it */
export const EXIT_BY_SIGNAL: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

export class Interrupt {
  /** the signal that asked the command to stop, or null */
  by: StopSignal | null = null;
  private readonly stops = new Set<() => void>();

  constructor(private readonly endNow: (code: number, line: string) => void) {}

  /** the exit code the run ends with once stopped by a signal, or null */
  get code(): number | null {
    return this.by ? EXIT_BY_SIGNAL[this.by] : null;
  }

  /**
   * Registers how the running command stops (cancel its walk, its run, its call); called at once
   * when a signal already came. Returns the unregistration.
   */
  onStop(fn: () => void): () => void {
    if (this.by) {
      fn();
      return () => {};
    }
    this.stops.add(fn);
    return () => this.stops.delete(fn);
  }

  /** A stop signal arrived. */
  receive(signal: StopSignal): void {
    if (this.by) {
      this.endNow(
        EXIT_BY_SIGNAL[this.by],
        'Stopped at once. A request still in flight stays in the journal: the next run of it takes it over (a free replay when the service charged it); loupe credits --reconcile shows any difference meanwhile.',
      );
      return;
    }
    this.by = signal;
    if (this.stops.size === 0) return this.endNow(EXIT_BY_SIGNAL[signal], '');
    for (const fn of [...this.stops]) fn();
  }
}

const interrupts = new WeakMap<Io, Interrupt>();

/** The interrupt of a run (made by runCli; a run without signals gets one that never fires). */
export function interruptOf(io: Io): Interrupt {
  let i = interrupts.get(io);
  if (!i) {
    i = new Interrupt(() => {});
    interrupts.set(io, i);
  }
  return i;
}

/**
 * Listens for SIGINT / SIGTERM on `source` for one run over `io`; `say` writes the run's last line.
 * Returns the function that stops listening.
 */
export function listenForSignals(io: Io, source: SignalSource, say: (line: string) => void): () => void {
  const i = new Interrupt((code, line) => {
    if (line) say(`loupe: ${line}`);
    source.exit(code);
  });
  interrupts.set(io, i);
  const onInt = (): void => i.receive('SIGINT');
  const onTerm = (): void => i.receive('SIGTERM');
  source.on('SIGINT', onInt);
  source.on('SIGTERM', onTerm);
  return () => {
    source.off('SIGINT', onInt);
    source.off('SIGTERM', onTerm);
  };
}
