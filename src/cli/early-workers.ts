/**
 * An export's worker threads started at the command line's very beginning (issue 30, docs/cli.md
 * "Start-up"): the built command line's entry (./bin.ts) calls `spawnExportWorkers` before it
 * loads the rest of its code, so that the workers load theirs (their bundle, better-sqlite3, the
 * renderers: ~180 ms) while this thread loads the command line's (~350 ms) instead of after it.
 * The export then takes them (src/core/export/worker-spawn.ts) and sends them their config.
 *
 * Decided from the arguments and one file size alone, and only when the export will take them: an
 * archive export (`loupe export`) to CSV, XLSX or Parquet of the whole library (no query flag:
 * a filter may leave a few rows, and a small export starts no worker), not pseudonymised (its rows
 * are not read by rid), of an archive large enough to hold the rows past which the export starts
 * workers. Which of `loupe export`'s options leave the rows as they are is said where the options
 * are listed (./export-options.ts), so a new one is not missed. When unsure, nothing is started (the export starts its own, as before). Workers no
 * export took are ended when the command ends (bin.ts), and never keep the process alive.
 */
import { statSync } from 'node:fs';
import { archivePath, defaultDataDir } from '../core/paths';
import { RID_EXPORT_WORKERS, spawnEarly, type RidExportFormat } from '../core/export/worker-spawn';
import { EXPORT_OPTIONS, flagNames, takesValue } from './export-options';

/** The global options that take a value (src/cli/main.ts). */
const GLOBAL_VALUES = new Set(['--base-url', '--data-dir']);
/** `loupe export`'s options that leave the rows as they are (./export-options.ts: `early`) */
const EARLY = Object.values(EXPORT_OPTIONS).filter((o) => o.early);
/** those that take a value, and the global ones */
const EXPORT_VALUES = new Set([...EARLY.filter((o) => takesValue(o.flags)).flatMap((o) => flagNames(o.flags)), ...GLOBAL_VALUES]);
/** those without a value */
const EXPORT_SWITCHES = new Set(EARLY.filter((o) => !takesValue(o.flags)).flatMap((o) => flagNames(o.flags)));

/**
 * The fewest archive bytes a row takes: 5,200 items whose record is an id alone make a 2.0 MB
 * archive (~395 bytes an item: its row, indexes, text index); half that, so that an archive
 * smaller than `rows` × this surely holds fewer than `rows` items.
 */
const MIN_ARCHIVE_BYTES_PER_ROW = 200;

/** The format of `argv`'s export when it will surely start its workers by rid, or null (not an export, or not sure). */
export function exportWorkersOf(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): RidExportFormat | null {
  const values = new Map<string, string>();
  let i = 0;
  /** argv[i]: an option of `allowed` and its value (`--x v` or `--x=v`), noted; false when it is not one */
  const option = (allowed: ReadonlySet<string>): boolean => {
    const a = argv[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (!allowed.has(name)) return false;
    if (eq > 0) values.set(name, a.slice(eq + 1));
    else if (i + 1 < argv.length) values.set(name, argv[++i]);
    else return false;
    return true;
  };
  // the global options, then the command
  for (; i < argv.length && argv[i].startsWith('-'); i++) if (!option(GLOBAL_VALUES)) return null;
  if (argv[i] !== 'export') return null;
  // then only options that leave the rows as they are: a query flag, --pseudonymise, --network,
  // --help, `--`, an argument: not sure
  for (i++; i < argv.length; i++) if (!EXPORT_SWITCHES.has(argv[i]) && !option(EXPORT_VALUES)) return null;
  const format = values.get('--format') ?? '';
  if (!Object.hasOwn(RID_EXPORT_WORKERS, format) || !(values.get('-o') ?? values.get('--out'))) return null;
  const kind = RID_EXPORT_WORKERS[format as RidExportFormat];
  try {
    const file = archivePath(defaultDataDir(env, values.get('--data-dir')));
    let bytes = statSync(file).size;
    try {
      bytes += statSync(`${file}-wal`).size;
    } catch {
      // no write-ahead log
    }
    if (bytes < kind.after * MIN_ARCHIVE_BYTES_PER_ROW) return null;
  } catch {
    return null; // no archive yet
  }
  return format as RidExportFormat;
}

/** Start the workers of `argv`'s export now (see above); nothing when not sure. */
export function spawnExportWorkers(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): void {
  const format = exportWorkersOf(argv, env);
  if (format) spawnEarly(format);
}
