/**
 * `npx tsx bench/install-peers.ts`: installs DuckDB into the peers folder now (bench/peers.ts:
 * `@duckdb/node-api` from the npm registry into `LOUPE_BENCH_PEERS` or ~/.cache/loupe-bench/peers,
 * outside the project). `.ci/run` runs it before `npm test`, so the DuckDB recipe tests and the
 * Parquet read-back find it (src/core/export/recipe-tools.ts). Exits 1 with the reason where it
 * cannot.
 */
import { duckdb, peersDir } from './peers';

void (async () => {
  const r = await duckdb((m) => console.log(m));
  if ('missing' in r) {
    console.error(r.missing);
    process.exit(1);
  }
  console.log(`DuckDB is in ${peersDir()}`);
})();
