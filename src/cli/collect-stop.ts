/**
 * Ctrl-C / SIGTERM during a command that runs collection plans it made itself (`dataset
 * recheck`, `dataset rehydrate`): every plan this process runs is cancelled through
 * `collect.cancel` — before its next request, the request in flight awaited and recorded — also
 * one that starts after the signal (./interrupt.ts).
 */
import type { CliContext } from './context';
import type { Io } from './io';
import { interruptOf } from './interrupt';

export function stopCollectRunsOnSignal(io: Io, c: () => CliContext): () => void {
  const running = new Set<string>();
  let stopping = false;
  const cancel = (id: string): void =>
    void c()
      .call('collect.cancel', { id })
      .catch(() => undefined);
  const offEvents = c().on((e) => {
    if (e.type !== 'collect-progress') return;
    if (e.plan.status !== 'running') return void running.delete(e.plan.id);
    if (running.has(e.plan.id)) return;
    running.add(e.plan.id);
    if (stopping) cancel(e.plan.id);
  });
  const offSignal = interruptOf(io).onStop(() => {
    stopping = true;
    if (io.stderr.isTTY) io.stderr.write('\nStopping after the request in flight (again to stop at once)…\n');
    for (const id of running) cancel(id);
  });
  return () => {
    offEvents();
    offSignal();
  };
}
