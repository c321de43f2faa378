/**
 * A bundle's manifest items and metric history from the export workers' pass (issue 29;
 * docs/datasets.md "How a bundle is written"): each group of rows comes back from a worker with
 * each row's key, hashes, calls and readings (archive/bundle-rows.ts RowFacts); this keeps the
 * small ones (never the rendered bytes) and gives them back in rid order — the order of the scans
 * they replace (`datasets.bundleItems`, `historyRows`: two more passes over the items table on the
 * exporting thread), so the manifest and the history files are the same. `complete` is false when
 * a group came without them (rows without a rid walk; a row deleted since the walk's snapshot):
 * the bundle then scans as before.
 */
import type { TablesPart } from '../export';

interface Part {
  rids: number[];
  keys: string[];
  csvSha: string[];
  jsonlSha: string[];
  calls: string[][];
  readings: Float64Array;
  ends: Uint32Array;
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
    const { calls, readings, ends } = part.facts;
    this.parts.push({ rids, keys: part.keys, csvSha: part.csvSha, jsonlSha: part.jsonlSha, calls, readings, ends });
  }

  get complete(): boolean {
    return this.complete_;
  }

  private done: { items: FactItem[]; history: unknown[][] } | null = null;

  /**
   * The manifest's items and the long-format metric history (companions.ts HISTORY_COLUMNS), in
   * rid order, each item's readings oldest first: built once, in one loop (kept for the history's
   * two formats, as the scan's rows were).
   */
  build(): { items: FactItem[]; history: unknown[][] } {
    if (this.done) return this.done;
    const items: FactItem[] = [];
    const history: unknown[][] = [];
    const row = (p: Part, k: number): void => {
      const [platform, kind, id] = splitKey(p.keys[k]);
      items.push({ platform, kind, id, calls: p.calls[k], csv_sha256: p.csvSha[k], jsonl_sha256: p.jsonlSha[k] });
      const r = p.readings;
      for (let i = k === 0 ? 0 : p.ends[k - 1]; i < p.ends[k]; i += 6)
        history.push([platform, kind, id, r[i], orNull(r[i + 1]), orNull(r[i + 2]), orNull(r[i + 3]), orNull(r[i + 4]), orNull(r[i + 5])]);
    };
    let last = -Infinity;
    let sorted = true;
    for (const p of this.parts)
      for (const rid of p.rids) {
        if (rid < last) sorted = false;
        last = rid;
      }
    if (sorted) for (const p of this.parts) for (let k = 0; k < p.rids.length; k++) row(p, k);
    // the walk's order is the query's sort: rid order by an index sorted on the rids
    else for (const [p, k] of ridOrder(this.parts)) row(p, k);
    return (this.done = { items, history });
  }
}

/**
 * Every row of the groups (part, row) in rid order. Each rid and its place in the walk are packed
 * into one number (rid × 2^bits + place) and the numbers sorted as numbers, with no comparator
 * called (200,000 rows: one comparator call per comparison was most of the facts' assembly);
 * where a rid does not fit, the rows are sorted by comparing rids.
 */
export function* ridOrder<P extends { rids: number[] }>(parts: readonly P[]): Generator<[P, number]> {
  let n = 0;
  let fits = true;
  for (const p of parts) n += p.rids.length;
  const scale = 2 ** Math.max(1, Math.ceil(Math.log2(n + 1)));
  for (const p of parts)
    for (const rid of p.rids) if (!(Number.isInteger(rid) && rid >= 0 && Number.isSafeInteger(rid * scale + scale))) fits = false;
  if (!fits) {
    const at: Array<[number, P, number]> = [];
    for (const p of parts) for (let k = 0; k < p.rids.length; k++) at.push([p.rids[k], p, k]);
    at.sort((x, y) => x[0] - y[0]);
    for (const [, p, k] of at) yield [p, k];
    return;
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
  for (const key of keys) {
    const place = key % scale;
    yield [parts[partAt[place]], rowAt[place]];
  }
}
