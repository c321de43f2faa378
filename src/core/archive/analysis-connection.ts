/**
 * The analysis layer's door to the archive file. The analysis index (src/core/analysis) keeps its
 * own summary tables (`an_*`) in the archive file and counts terms, compares series and reads
 * network facts straight from `items` with SQL of its own (the charts' rows moved in: chart-rows.ts); the export of a network reads those
 * facts too. This is the one place outside the archive's table families that reaches its
 * connection (issue 13: moving that SQL into the archive as families of its own is left to do).
 */
import type { Db } from './connection';
import { ctxOf } from './context';

export function analysisConnection(archive: object): Db {
  return ctxOf(archive).db;
}
