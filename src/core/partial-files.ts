/**
 * Files written under a temporary name beside their final one and renamed when complete (exports,
 * bundles): `.<name>.<pid>-<random>.partial`, so that a file a killed process left behind (`kill -9`
 * mid-export) can be told from one a live export is writing — by the process id in its name.
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** A temporary name beside `final` for a file (or folder) that becomes `final` when complete. */
export function partialPath(final: string, suffix = 'partial'): string {
  return join(dirname(final), `.${basename(final)}.${process.pid}-${randomBytes(6).toString('hex')}.${suffix}`);
}
