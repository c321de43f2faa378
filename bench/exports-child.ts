/**
 * Child process of exports.bench.ts: one export of a data folder's archive through the doors'
 * exportAny (CSV, XLSX, Parquet, GEXF…), reporting time and peak RSS of this process only.
 *
 *   node --import tsx bench/exports-child.ts <dataDir> <out> <format> [network] [since] [until]
 *
 * Prints one JSON line: { rows, bytes, ms, cpuMs, peakRssMB, summary } (cpuMs: CPU time of every
 * thread of this process during the export, workers included).
 */
import { openArchive } from '../src/core/archive/index';
import { exportAny, type AnyExportFormat } from '../src/core/export/formats';
import { archivePath } from '../src/core/paths';

async function main(): Promise<void> {
  const [dataDir, out, format, network, since, until] = process.argv.slice(2);
  if (!dataDir || !out || !format) throw new Error('usage: exports-child.ts <dataDir> <out> <format> [network] [since] [until]');
  const a = openArchive(archivePath(dataDir));
  const q = { ...(since ? { since } : {}), ...(until ? { until } : {}) };
  const u0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await exportAny(a.iterateExportRows(q), {
    format: format as AnyExportFormat,
    out,
    network: network && network !== '-' ? network : undefined,
    archive: a,
    query: q,
  });
  const ms = performance.now() - t0;
  const u = process.cpuUsage(u0);
  a.close();
  const peakRssMB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    JSON.stringify({ rows: r.rows, bytes: r.bytes, ms, cpuMs: (u.user + u.system) / 1000, peakRssMB, summary: r.summary }) + '\n',
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
