/**
 * Test-only: the archive's connection, for tests and benchmarks that read or arrange tables
 * directly (the count of ledger rows, a marker set by hand). Application code never imports this:
 * it goes through the `Archive` facade (archive.ts), which keeps its connection private.
 */
import type { Db } from './connection';
import { ctxOf } from './context';

export function testDb(archive: object): Db {
  return ctxOf(archive).db;
}
