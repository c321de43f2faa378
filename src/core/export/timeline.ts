/**
 * An export's timeline, for finding where its threads wait (issue 30; bench/export-timeline.ts
 * reads it). With `LOUPE_EXPORT_TIMELINE=<file>` in the environment, every thread of the process
 * appends one line per event to that file: `<epoch ms> <thread id> <thread CPU ms> <event>` (the
 * thread's CPU time from Linux's /proc/thread-self/schedstat, `-` elsewhere); the exporting
 * thread's first line is `origin`, the time the process started (`performance.timeOrigin`, the
 * same in every thread), its last `exit`. Without it, `mark` does nothing (one test of a
 * constant). Never user output: only a file the variable names.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { isMainThread, threadId } from 'node:worker_threads';

const file = process.env.LOUPE_EXPORT_TIMELINE;
let fd: number | null = null;

let stat: number | null = null;
const statBytes = Buffer.alloc(128);

/** this thread's CPU time so far, ms (its schedstat file read again at offset 0: a few µs) */
function cpu(): string {
  try {
    stat ??= openSync('/proc/thread-self/schedstat', 'r');
    const n = readSync(stat, statBytes, 0, statBytes.length, 0);
    return (Number(statBytes.toString('latin1', 0, n).split(' ')[0]) / 1e6).toFixed(3);
  } catch {
    return '-';
  }
}

const line = (ms: number, what: string, cpuMs = cpu()): void => {
  if (fd === null) return;
  writeSync(fd, `${ms.toFixed(3)} ${threadId} ${cpuMs} ${what}\n`);
};

function open(): void {
  if (!file) return;
  fd = openSync(file, 'a');
  if (!isMainThread) return;
  line(performance.timeOrigin, 'origin', '0');
  process.once('exit', () => {
    line(performance.timeOrigin + performance.now(), 'exit');
    if (fd !== null) closeSync(fd);
    fd = null;
  });
}

/** Note `what` at this moment (only with LOUPE_EXPORT_TIMELINE set). */
export function mark(what: string): void {
  if (!file) return;
  if (fd === null) open();
  line(performance.timeOrigin + performance.now(), what);
}
