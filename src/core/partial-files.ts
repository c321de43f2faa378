/**
 * Files written under a temporary name beside their final one and renamed when complete (exports,
 * bundles, `--out` files, archive snapshots with their `-journal`): `.<name>.<host>-<pid>-<random>.partial` (`.staged`, `.parts`), so that what a killed
 * process left behind (`kill -9` mid-export: up to the whole export's size, hidden) can be told from
 * what a live export is writing — by the process id in its name — and removed by the next export to
 * the same name (`freshPartial`). `<host>` (8 hex digits of a hash of the host name) keeps a
 * process id to the machine (or container) that can check it: another machine's export to a shared
 * folder, or another container's on a shared volume (its own process ids), is never taken for dead.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** this machine's tag in temporary names */
export const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/** A temporary name beside `final` for a file (or folder) that becomes `final` when complete. */
export function partialPath(final: string, suffix = 'partial'): string {
  return join(dirname(final), `.${basename(final)}.${HOST_TAG}-${process.pid}-${randomBytes(6).toString('hex')}.${suffix}`);
}

/** whether the process `pid` is alive on this machine (another user's counts: EPERM) */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Removes the temporary files and folders for `final` whose process on this machine is gone (a
 * killed export's), including a staged file's own partial
 * (`..<name>.<host>-<pid>-<hex>.staged.<host>-<pid>-<hex>.partial`); a live process's, and another
 * machine's, are left alone. Returns the names removed. Never throws: a folder that cannot be read
 * or an entry that cannot be removed is left as it is.
 */
export function sweepPartials(final: string): string[] {
  const re = new RegExp(
    `^\\.\\.?${escape(basename(final))}\\.${HOST_TAG}-(\\d+)-[0-9a-f]{12}\\.(?:partial|staged|parts)(?:\\.${HOST_TAG}-\\d+-[0-9a-f]{12}\\.partial)?(?:-journal|-wal|-shm)?$`,
  );
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dirname(final));
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = re.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    try {
      rmSync(join(dirname(final), name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      /* left as it is */
    }
  }
  return removed;
}

/** `partialPath(final, suffix)`, after removing what killed processes left for `final` (`sweepPartials`). */
export function freshPartial(final: string, suffix = 'partial'): string {
  sweepPartials(final);
  return partialPath(final, suffix);
}

/**
 * A new folder `<prefix>-<host>-<pid>-XXXXXX` in `parent` (mkdtemp), after removing the ones with
 * that prefix whose process on this machine is gone (a killed reader's copy of the whole archive
 * in the system temp folder: `loupe-readonly-…`); a live process's, and another machine's, stay.
 */
export function freshTempDir(parent: string, prefix: string): string {
  const re = new RegExp(`^${escape(prefix)}-${HOST_TAG}-(\\d+)-[A-Za-z0-9]{6}$`);
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    /* mkdtemp says why */
  }
  for (const name of names) {
    const m = re.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    try {
      rmSync(join(parent, name), { recursive: true, force: true });
    } catch {
      /* left as it is */
    }
  }
  return mkdtempSync(join(parent, `${prefix}-${HOST_TAG}-${process.pid}-`));
}
