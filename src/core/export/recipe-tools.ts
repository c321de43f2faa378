/**
 * Test support (issue 26): the tools docs/export.md's reading recipes are run with — a python3 with
 * pandas / openpyxl / networkx, Rscript, and DuckDB's Node API from the benchmarks' peers folder
 * (bench/peers.ts: `LOUPE_BENCH_PEERS` or ~/.cache/loupe-bench/peers) — and what a missing one
 * does to its test. `.ci/run` installs them all and sets `LOUPE_RECIPE_TOOLS=required`: a test
 * whose tool is missing then FAILS, saying which, so a green CI has run every recipe. Elsewhere (a
 * developer's machine without R, say) it is skipped, its title saying why. One exception, even in
 * CI: pandas' Parquet read needs pyarrow, which Debian 12 does not package (docs/export.md).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** whether a missing tool fails its test (CI) rather than skipping it */
export const TOOLS_REQUIRED = process.env.LOUPE_RECIPE_TOOLS === 'required';

export const hasProgram = (cmd: string, args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

/** a python that can import every module named (the PATH's python3, else Debian's), or null */
export function pythonWith(modules: string[]): string | null {
  const code = modules.map((m) => `import ${m}`).join(';') || 'pass';
  return ['python3', '/usr/bin/python3'].find((py) => hasProgram(py, ['-c', code])) ?? null;
}

/** the peers folder bench/peers.ts installs DuckDB into */
export const PEERS = process.env.LOUPE_BENCH_PEERS ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'loupe-bench', 'peers');

/** the entry file of @duckdb/node-api in the peers folder, or null */
export function duckdbEntry(): string | null {
  try {
    return existsSync(join(PEERS, 'package.json')) ? createRequire(join(PEERS, 'package.json')).resolve('@duckdb/node-api') : null;
  } catch {
    return null;
  }
}

/** `it.skipIf`'s condition: a missing tool skips only where tools are not required */
export const skipWithout = (present: unknown): boolean => !present && !TOOLS_REQUIRED;

/** the end of a test's title: why it is skipped, or that it will fail for want of the tool */
export function missingNote(present: unknown, what: string): string {
  if (present) return '';
  return TOOLS_REQUIRED ? ` (FAILS: ${what}, and LOUPE_RECIPE_TOOLS=required)` : ` (skipped: ${what})`;
}

/** the tool, or the test fails saying what is missing (reached only where tools are required) */
export function need<T>(tool: T | null | undefined | false, what: string): T {
  if (!tool) throw new Error(`${what}; LOUPE_RECIPE_TOOLS=required (.ci/run) makes a missing recipe tool a failure, not a skip`);
  return tool;
}

/** What the tests use of @duckdb/node-api (not a dependency of the project: no types from it). */
export interface DuckConn {
  runAndReadAll(sql: string): Promise<{ getRows(): unknown[][] }>;
  closeSync(): void;
}

/** An in-memory DuckDB from the peers folder's @duckdb/node-api (`entry`: duckdbEntry()). */
export async function duckdbMemory(entry: string): Promise<{ c: DuckConn; close(): void }> {
  const { DuckDBInstance } = (await import(pathToFileURL(entry).href)) as {
    DuckDBInstance: { create(p: string): Promise<{ connect(): Promise<DuckConn>; closeSync(): void }> };
  };
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  return { c, close: () => (c.closeSync(), db.closeSync()) };
}

/** A recipe's SQL with its file name replaced, as statements. */
export function sqlStatements(recipe: string, name: string, file: string): string[] {
  return recipe
    .replaceAll(`'${name}'`, `'${file.replace(/'/g, "''")}'`)
    .split(';')
    .filter((s) => s.trim());
}
