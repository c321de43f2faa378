/**
 * Child process of library.bench.ts: exports one SQLite file with exportRows and reports time and
 * peak RSS of this process only (so the parent's 1M-row generation does not count).
 *
 *   node --import tsx bench/export-child.ts <archive|raw> <db> <out> <csv|json|jsonl>
 *
 * Prints one JSON line: { rows, bytes, ms, peakRssMB, baseRssMB }.
 */
import Database from 'better-sqlite3';
import { exportRows } from '../src/core/export/index';
import type { ExportRow } from '../src/core/ports';
import { loadArchive } from './archive-adapter';

async function main(): Promise<void> {
  const [mode, db, out, format] = process.argv.slice(2);
  if (!mode || !db || !out || (format !== 'csv' && format !== 'json' && format !== 'jsonl')) {
    throw new Error('usage: export-child.ts <archive|raw> <db> <out> <csv|json|jsonl>');
  }
  let rows: Iterable<ExportRow> | AsyncIterable<ExportRow>;
  let close: () => void;
  if (mode === 'archive') {
    const open = await loadArchive();
    if (!open) throw new Error('archive not available');
    const a = await open(db);
    rows = a.iterateExportRows({});
    close = () => a.close();
  } else {
    const d = new Database(db, { readonly: true });
    const stmt = d.prepare('SELECT platform, kind, id, raw FROM posts ORDER BY rowid');
    rows = (function* (): Iterable<ExportRow> {
      for (const r of stmt.iterate() as Iterable<{ platform: string; kind: string; id: string; raw: string }>) {
        yield {
          platform: r.platform,
          kind: r.kind,
          id: r.id,
          record: JSON.parse(r.raw) as Record<string, unknown>,
          firstSeenAt: 0,
          lastSeenAt: 0,
          tags: [],
          note: null,
          overrides: {},
        };
      }
    })();
    close = () => d.close();
  }
  const baseRssMB = process.memoryUsage().rss / 2 ** 20;
  const t0 = performance.now();
  const res = await exportRows(rows, { format, out });
  const ms = performance.now() - t0;
  close();
  const peakRssMB = process.resourceUsage().maxRSS / 1024; // maxRSS is in KiB
  process.stdout.write(JSON.stringify({ rows: res.rows, bytes: res.bytes, ms, peakRssMB, baseRssMB }) + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
