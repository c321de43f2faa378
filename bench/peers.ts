/**
 * The tools the benchmarks compare Loupe with (issue 30): the sqlite3 command-line program and
 * DuckDB. Neither is a dependency of the project. DuckDB comes from the npm registry
 * (`@duckdb/node-api`, whose platform package ships the engine) into a cache folder outside the
 * project — `LOUPE_BENCH_PEERS` or `~/.cache/loupe-bench/peers` — installed on first use; the
 * sqlite3 program from the system's packages (Debian: `apt-get install -y sqlite3`), installed
 * when the bench runs as root with apt-get. `LOUPE_BENCH_INSTALL_PEERS=0` installs nothing. A peer
 * that cannot be had is skipped with a sentence saying why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** the DuckDB package pinned for the comparisons */
export const DUCKDB_PACKAGE = '@duckdb/node-api@1.5.6-r.1';

export function peersDir(): string {
  return process.env.LOUPE_BENCH_PEERS ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'loupe-bench', 'peers');
}

const mayInstall = (): boolean => process.env.LOUPE_BENCH_INSTALL_PEERS !== '0';

/** The sqlite3 program, or why there is none. */
export function sqlite3Program(log: (m: string) => void = () => undefined): { path: string } | { missing: string } {
  const find = (): string | null => ['/usr/bin/sqlite3', '/usr/local/bin/sqlite3'].find((p) => existsSync(p)) ?? null;
  let path = find();
  if (!path && mayInstall() && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    log('installing the sqlite3 program (apt-get install -y sqlite3) for the comparisons');
    spawnSync('apt-get', ['install', '-y', '-q', 'sqlite3'], { stdio: 'ignore', timeout: 300_000 });
    path = find();
  }
  return path
    ? { path }
    : { missing: 'the sqlite3 program is not installed (Debian: apt-get install -y sqlite3), so this comparison was skipped' };
}

/** What the benchmarks use of @duckdb/node-api (not a dependency of the project: no types from it). */
export interface DuckDbConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRows(): unknown[][] }>;
  closeSync(): void;
}
export interface DuckDbApi {
  DuckDBInstance: {
    create(path?: string, options?: Record<string, string>): Promise<{ connect(): Promise<DuckDbConnection>; closeSync(): void }>;
  };
}

/** DuckDB's Node API from the peers folder (installed there first when allowed), or why not. */
export async function duckdb(log: (m: string) => void = () => undefined): Promise<{ api: DuckDbApi } | { missing: string }> {
  const dir = peersDir();
  const entry = (): string | null => {
    try {
      return createRequire(join(dir, 'package.json')).resolve('@duckdb/node-api');
    } catch {
      return null;
    }
  };
  let file = entry();
  if (!file && mayInstall()) {
    log(`installing ${DUCKDB_PACKAGE} into ${dir} for the comparisons (outside the project)`);
    try {
      mkdirSync(dir, { recursive: true });
      if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir, DUCKDB_PACKAGE], { stdio: 'ignore', timeout: 600_000 });
    } catch (e) {
      return {
        missing: `DuckDB could not be installed from the npm registry into ${dir} (${(e as Error).message.split('\n')[0]}), so this comparison was skipped`,
      };
    }
    file = entry();
  }
  if (!file) return { missing: `DuckDB is not installed in ${dir} (LOUPE_BENCH_INSTALL_PEERS=0), so this comparison was skipped` };
  try {
    return { api: (await import(pathToFileURL(file).href)) as DuckDbApi };
  } catch (e) {
    return { missing: `DuckDB did not load from ${dir}: ${(e as Error).message.split('\n')[0]}; this comparison was skipped` };
  }
}
