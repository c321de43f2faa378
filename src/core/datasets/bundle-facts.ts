/**
 * A bundle's manifest items and metric history from the export workers' pass (issue 29;
 * docs/datasets.md "How a bundle is written"): each group of rows comes back from a worker with
 * each row's key, hashes, calls and readings (archive/bundle-rows.ts RowFacts); this keeps the
 * small ones (never the rendered bytes) and gives them back in rid order — the order of the scans
 * they replace (`datasets.bundleItems`, `historyRows`: two more passes over the items table on the
 * exporting thread), so the manifest and the history files are the same. `complete` is false when
 * a group came without them (rows without a rid walk; a row deleted since the walk's snapshot):
 * the bundle then scans as before. The groups' counts by availability give the manifest's
 * `attrition` (`datasets.attrition` of the query: a third scan of the items table, ~1.1–1.5 s of
 * CPU at 200k on the exporting thread after the pass).
 */
import type { AttritionRow } from '../../shared/contract-datasets';
import type { AttritionCount, TablesPart } from '../export';

interface Part {
  rids: number[];
  keys: string[];
  csvSha: string[];
  jsonlSha: string[];
  calls: string[][];
  readings: Float64Array;
  ends: Uint32Array;
  attrition: AttritionCount[];
  latestMark: number | null;
}

/** SQLite's BINARY order of two texts: their UTF-8 bytes compared */
function binaryOrder(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** `platform/kind/id` → its three parts (a platform and a kind hold no `/`; an id may) */
function splitKey(key: string): [string, string, string] {
  const a = key.indexOf('/');
  const b = key.indexOf('/', a + 1);
  return [key.slice(0, a), key.slice(a + 1, b), key.slice(b + 1)];
}

const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** A manifest item (bundle.ts ManifestItem) of a full bundle. */
export interface FactItem {
  platform: string;
  kind: string;
  id: string;
  calls: string[];
  csv_sha256: string;
  jsonl_sha256: string;
}

export class BundleFacts {
  private readonly parts: Part[] = [];
  private complete_ = true;

  /** a group as placed (bundle-tables.ts onPart) */
  add(rids: number[] | null, part: TablesPart): void {
    if (!rids || !part.facts || rids.length !== part.keys.length) {
      this.complete_ = false;
      return;
    }
    const { calls, readings, ends, attrition, latestMark } = part.facts;
    this.parts.push({ rids, keys: part.keys, csvSha: part.csvSha, jsonlSha: part.jsonlSha, calls, readings, ends, attrition, latestMark });
  }

  /**
   * The rows by availability, by network and publication month, and the latest re-check mark:
   * what `datasets.attritionMarks` gives for the query (archive/attrition.ts: its GROUP BY network,
   * month and its order — network, the unknown month last, month — in SQLite's BINARY order),
   * counted from the rows the pass read.
   */
  attritionMarks(): { rows: AttritionRow[]; latestMark: number | null } {
    let latestMark: number | null = null;
    for (const p of this.parts) if (p.latestMark !== null && (latestMark === null || p.latestMark > latestMark)) latestMark = p.latestMark;
    return { rows: this.attritionRows(), latestMark };
  }

  private attritionRows(): AttritionRow[] {
    const byKey = new Map<string, AttritionRow>();
    for (const p of this.parts)
      for (const [platform, month, available, unavailable, notRechecked] of p.attrition) {
        const key = JSON.stringify([platform, month]);
        const r = byKey.get(key);
        if (r) {
          r.available += available;
          r.unavailable += unavailable;
          r.notRechecked += notRechecked;
        } else byKey.set(key, { platform, month, available, unavailable, notRechecked });
      }
    return [...byKey.values()].sort(
      (x, y) =>
        binaryOrder(x.platform, y.platform) ||
        Number(x.month === null) - Number(y.month === null) ||
        (x.month === null || y.month === null ? 0 : binaryOrder(x.month, y.month)),
    );
  }

  get complete(): boolean {
    return this.complete_;
  }

  /** every row in rid order, as ridOrderIndex gives it: computed once for the items and the history */
  private order_: { part: Uint32Array; row: Uint32Array } | null = null;

  private order(): { part: Uint32Array; row: Uint32Array } {
    if (this.order_) return this.order_;
    let last = -Infinity;
    let sorted = true;
    let n = 0;
    for (const p of this.parts) {
      n += p.rids.length;
      for (const rid of p.rids) {
        if (rid < last) sorted = false;
        last = rid;
      }
    }
    if (!sorted) return (this.order_ = ridOrderIndex(this.parts));
    // the walk's order is the query's sort; here the rid order already
    const part = new Uint32Array(n);
    const row = new Uint32Array(n);
    let at = 0;
    for (let i = 0; i < this.parts.length; i++)
      for (let k = 0; k < this.parts[i].rids.length; k++, at++) {
        part[at] = i;
        row[at] = k;
      }
    return (this.order_ = { part, row });
  }

  private items_: FactItem[] | null = null;

  /** The manifest's items, in rid order. */
  items(): FactItem[] {
    if (this.items_) return this.items_;
    const items: FactItem[] = [];
    const { part, row } = this.order();
    for (let i = 0; i < part.length; i++) {
      const p = this.parts[part[i]];
      const k = row[i];
      const [platform, kind, id] = splitKey(p.keys[k]);
      items.push({ platform, kind, id, calls: p.calls[k], csv_sha256: p.csvSha[k], jsonl_sha256: p.jsonlSha[k] });
    }
    return (this.items_ = items);
  }

  /**
   * The long-format metric history (companions.ts HISTORY_COLUMNS), in rid order, each item's
   * readings oldest first (a worker writes it from the archive when it can: bundle-history.ts).
   */
  history(): unknown[][] {
    const history: unknown[][] = [];
    const { part, row } = this.order();
    for (let i = 0; i < part.length; i++) {
      const p = this.parts[part[i]];
      const k = row[i];
      const [platform, kind, id] = splitKey(p.keys[k]);
      const r = p.readings;
      for (let i = k === 0 ? 0 : p.ends[k - 1]; i < p.ends[k]; i += 6)
        history.push([platform, kind, id, r[i], orNull(r[i + 1]), orNull(r[i + 2]), orNull(r[i + 3]), orNull(r[i + 4]), orNull(r[i + 5])]);
    }
    return history;
  }
}

/**
 * Every row of the groups (part, row) in rid order. Each rid and its place in the walk are packed
 * into one number (rid × 2^bits + place) and the numbers sorted as numbers, with no comparator
 * called (200,000 rows: one comparator call per comparison was most of the facts' assembly);
 * where a rid does not fit, the rows are sorted by comparing rids.
 */
export function* ridOrder<P extends { rids: number[] }>(parts: readonly P[]): Generator<[P, number]> {
  const { part, row } = ridOrderIndex(parts);
  for (let i = 0; i < part.length; i++) yield [parts[part[i]], row[i]];
}

/** ridOrder's rows as two arrays: the i-th row in rid order is row `row[i]` of part `part[i]` (no pair made a row). */
export function ridOrderIndex(parts: readonly { rids: number[] }[]): { part: Uint32Array; row: Uint32Array } {
  let n = 0;
  let fits = true;
  for (const p of parts) n += p.rids.length;
  const part = new Uint32Array(n);
  const row = new Uint32Array(n);
  const scale = 2 ** Math.max(1, Math.ceil(Math.log2(n + 1)));
  for (const p of parts)
    for (const rid of p.rids) if (!(Number.isInteger(rid) && rid >= 0 && Number.isSafeInteger(rid * scale + scale))) fits = false;
  if (!fits) {
    const at: Array<[number, number, number]> = [];
    for (let i = 0; i < parts.length; i++) for (let k = 0; k < parts[i].rids.length; k++) at.push([parts[i].rids[k], i, k]);
    at.sort((x, y) => x[0] - y[0]);
    for (let i = 0; i < n; i++) [, part[i], row[i]] = at[i];
    return { part, row };
  }
  const keys = new Float64Array(n);
  const partAt = new Uint32Array(n);
  const rowAt = new Uint32Array(n);
  let at = 0;
  for (let i = 0; i < parts.length; i++)
    for (let k = 0; k < parts[i].rids.length; k++, at++) {
      keys[at] = parts[i].rids[k] * scale + at;
      partAt[at] = i;
      rowAt[at] = k;
    }
  keys.sort();
  for (let i = 0; i < n; i++) {
    const place = keys[i] % scale;
    part[i] = partAt[place];
    row[i] = rowAt[place];
  }
  return { part, row };
}

/** A FactItem as `JSON.stringify(manifest, null, 1)` writes it in the manifest's `items` (manifest-text.ts). */
export function factItemText(i: FactItem): string {
  const calls = i.calls.length === 0 ? '[]' : `[\n    ${i.calls.map((c) => JSON.stringify(c)).join(',\n    ')}\n   ]`;
  return `  {\n   "platform": ${JSON.stringify(i.platform)},\n   "kind": ${JSON.stringify(i.kind)},\n   "id": ${JSON.stringify(i.id)},\n   "calls": ${calls},\n   "csv_sha256": ${JSON.stringify(i.csv_sha256)},\n   "jsonl_sha256": ${JSON.stringify(i.jsonl_sha256)}\n  }`;
}
