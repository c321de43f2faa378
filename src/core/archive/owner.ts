/**
 * Which process owns a running walk, and whether that process still exists
 * (docs/archive.md "Walks and their owner").
 *
 * A walk is saved as `running` by the process walking it. If that process dies (killed, crashed,
 * the machine rebooted) the row stays `running`; readers compare the recorded owner with the live
 * processes and report such a walk as `interrupted`.
 *
 * The owner is the pid, the host name and a start mark that tells this process apart from a
 * later one that got the same pid: on Linux the boot id plus the process start time in clock
 * ticks (/proc/<pid>/stat field 22), elsewhere the approximate start time in ms (liveness then
 * rests on the pid alone).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface WalkOwnerMark {
  pid: number;
  host: string;
  /** `linux:<boot id>:<start ticks>` or `ms:<approximate start ms>` */
  start: string;
}

function linuxBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** State letter and start time in clock ticks after boot of a process (Linux), or null. */
function linuxStat(pid: number): { state: string; ticks: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state); field 22 (starttime) is rest[19]
    const t = rest[19];
    return t && /^\d+$/.test(t) ? { state: rest[0], ticks: t } : null;
  } catch {
    return null;
  }
}

let self: WalkOwnerMark | null = null;

/** This process's owner mark (computed once). */
export function currentOwner(): WalkOwnerMark {
  if (self) return self;
  const boot = process.platform === 'linux' ? linuxBootId() : null;
  const ticks = boot ? (linuxStat(process.pid)?.ticks ?? null) : null;
  const start = boot && ticks ? `linux:${boot}:${ticks}` : `ms:${Math.round(Date.now() - process.uptime() * 1000)}`;
  self = { pid: process.pid, host: hostname(), start };
  return self;
}

/** For tests: forget the cached mark (e.g. after faking a pid). */
export function resetOwnerCache(): void {
  self = null;
}

/**
 * true: the owner process is alive; false: it is gone (no such pid, another boot, or the pid now
 * belongs to a process started later); null: cannot tell (another host, or no owner recorded).
 */
export function ownerAlive(o: { pid: number | null; host: string | null; start: string | null }): boolean | null {
  if (o.pid === null || o.host === null || o.start === null) return null;
  const me = currentOwner();
  if (o.host !== me.host) return null;
  if (o.pid === me.pid && o.start === me.start) return true;
  const linux = /^linux:([^:]+):(\d+)$/.exec(o.start);
  const myBoot = /^linux:([^:]+):/.exec(me.start)?.[1];
  if (linux && myBoot && linux[1] !== myBoot) return false; // recorded before a reboot
  try {
    process.kill(o.pid, 0);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    if (code !== 'EPERM') return null; // EPERM: it exists but belongs to another user
  }
  if (linux && myBoot) {
    const st = linuxStat(o.pid);
    if (st && st.state === 'Z') return false; // exited, not yet reaped by its parent
    if (st && st.ticks !== linux[2]) return false; // the pid was reused
  }
  return true;
}
