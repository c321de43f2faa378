/**
 * Which export starts its workers at the command line's beginning (./early-workers.ts, issue 30):
 * only a whole-library CSV / XLSX / Parquet export of an archive large enough, with the format's
 * worker kind, limits and the count the export itself would choose; anything else, nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { exportWorkersOf } from './early-workers';
import { EXPORT_OPTIONS, flagNames, takesValue } from './export-options';
import { registerExportCommand } from './commands/export-file';
import type { Io } from './io';
import type { CliContext } from './context';
import { withQueryFlags } from './query-flags';
import { RID_EXPORT_WORKERS } from '../core/export/worker-spawn';
import { PARQUET_ROW_GROUP } from '../core/export/parquet';

let dir: string;
/** data folders whose archive is a sparse file of this size (only its size is read) */
const home = (bytes: number): string => {
  const d = join(dir, String(bytes));
  mkdirSync(d, { recursive: true });
  const f = join(d, 'loupe.db');
  closeSync(openSync(f, 'w'));
  truncateSync(f, bytes);
  return d;
};
let big: string;
let mid: string;
let small: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-early-'));
  big = home(8 << 20);
  mid = home(2 << 20);
  small = home(512 << 10);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = (d: string): Record<string, string> => ({ LOUPE_HOME: d });

describe('the workers an export starts at once', () => {
  it('a whole-library CSV, XLSX or Parquet export: its format’s workers, as many as the export takes', () => {
    expect(exportWorkersOf(['export', '--format', 'csv', '-o', 'x.csv'], env(big))).toBe('csv');
    expect(exportWorkersOf(['--data-dir', big, 'export', '--format=xlsx', '--out=x.xlsx', '--no-history'], {})).toBe('xlsx');
    expect(
      exportWorkersOf(['export', '--format', 'parquet', '--sort', 'likes:desc', '--columns', 'id,text', '--no-bom', '-o', '-'], env(big)),
    ).toBe('parquet');
    // --data-dir wins over LOUPE_HOME, as the command line's
    expect(exportWorkersOf(['export', '--data-dir', big, '--format', 'csv', '-o', 'x'], env(small))).not.toBeNull();
    expect(exportWorkersOf(['export', '--data-dir', small, '--format', 'csv', '-o', 'x'], env(big))).toBeNull();
  });

  it('an archive too small for the rows past which the export starts workers, or none: nothing', () => {
    // the rows past which each export starts workers, as the exports count them
    expect(RID_EXPORT_WORKERS.parquet.after).toBe(PARQUET_ROW_GROUP);
    expect(exportWorkersOf(['export', '--format', 'csv', '-o', 'x'], env(small))).toBeNull();
    expect(exportWorkersOf(['export', '--format', 'csv', '-o', 'x'], env(mid))).not.toBeNull();
    // a Parquet export of one row group (20,000 rows) starts no worker
    expect(exportWorkersOf(['export', '--format', 'parquet', '-o', 'x'], env(mid))).toBeNull();
    expect(exportWorkersOf(['export', '--format', 'csv', '-o', 'x'], env(join(dir, 'nothing-here')))).toBeNull();
  });

  it('another command, format or a flag that may change the rows or the path: nothing', () => {
    for (const argv of [
      ['library', '--format', 'csv', '-o', 'x'],
      ['export', '--format', 'json', '-o', 'x'],
      ['export', '--format', 'gexf', '--network', 'mentions', '-o', 'x'],
      ['export', '--format', 'csv'],
      ['export', '-o', 'x'],
      ['export', '--format', 'csv', '-o', 'x', '--pseudonymise'],
      ['export', '--format', 'csv', '-o', 'x', '--help'],
      ['export', '--format', 'csv', '-o'],
      ['export', '--format', 'csv', '-o', 'x', 'extra'],
      ['export', '--format', 'csv', '-o', 'x', '--', '--y'],
      ['--base-url', 'http://127.0.0.1:1', '--help', 'export', '--format', 'csv', '-o', 'x'],
      [],
    ])
      expect(exportWorkersOf(argv, env(big)), argv.join(' ')).toBeNull();
  });

  it('any query flag anywhere after the command (a filter may leave a few rows): nothing', () => {
    const plain = ['--format', 'csv', '-o', 'x.csv', '--sort', 'likes:desc', '--no-history'];
    const flags = [
      '--platform',
      '--kind',
      '--language',
      '--author',
      '--text',
      '--since',
      '--until',
      '--label',
      '--tag',
      '--watchlist',
      '--thread',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...flags), fc.string(), fc.nat(plain.length), (flag, value, at) => {
        const argv = ['export', ...plain];
        expect(exportWorkersOf(argv, env(big))).not.toBeNull();
        argv.splice(1 + at - (at % 2), 0, flag, value); // before an option, or at the end
        expect(exportWorkersOf(argv, env(big))).toBeNull();
      }),
      { numRuns: 200 },
    );
  });

  it('each of `loupe export`’s options, from the one list the command registers: nothing unless it leaves the rows as they are', () => {
    const program = new Command();
    registerExportCommand(program, {} as Io, () => ({}) as CliContext);
    const registered = program.commands.find((c) => c.name() === 'export')!.options.map((o) => o.flags);
    const queryFlags = withQueryFlags(new Command('q')).options.map((o) => o.flags);
    expect(registered).toEqual([...queryFlags, ...Object.values(EXPORT_OPTIONS).map((o) => o.flags)]);
    const plain = ['export', '--format', 'csv', '-o', 'x.csv'];
    expect(exportWorkersOf(plain, env(big))).toBe('csv');
    for (const o of Object.values(EXPORT_OPTIONS))
      for (const name of flagNames(o.flags)) {
        const value = name === '--format' ? ['csv'] : takesValue(o.flags) ? ['v'] : [];
        expect(exportWorkersOf([...plain, name, ...value], env(big)), name).toBe(o.early ? 'csv' : null);
      }
  });
});
