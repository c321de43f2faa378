/**
 * Dataset bundles (issue 29; docs/datasets.md "Bundles"): a folder a colleague or a reviewer can
 * open and check. `exportBundle` writes the items (CSV, Parquet, JSONL with the records as the API
 * returned them), their metric history and annotations with authors (beside each table), the stored
 * answers that delivered them (`answers.jsonl`, one answer a line, exactly as kept) and
 * `manifest.json`: the query, Loupe's version, the spec variants it is tested under, every file's
 * SHA-256, every call (endpoint, parameters, time, request id, credits, cached, replayed, the
 * answer's SHA-256), every item with its calls and its rows' SHA-256, chained into one root hash.
 * A **dehydrated** bundle holds the manifest only (item keys and the calls to re-collect them).
 */
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { LoupeError } from '../../shared/errors';
import type { AttritionRow, RehydrationQuote } from '../../shared/contract-datasets';
import type { LibraryQuery, ResultSet } from '../../shared/query';
import type { Archive } from '../archive';
import { bundleTables, companionsOf, timelineMark, writeCompanions, type BundleTablesResult, type CompanionSource } from '../export';
import { BundleFacts, factItemText } from './bundle-facts';
import { isZipPath } from './bundle-source';
import { writeJsonInPieces } from './manifest-text';
import { itemKeyOf, sha256 } from './row-hashes';
import { writeZip } from './zip';
import { fileWriteError } from '../storage-error';
import { freshPartial, partialPath } from '../partial-files';

export const BUNDLE_FORMAT = 'loupe-dataset-bundle';
export const MANIFEST = 'manifest.json';
export { itemKeyOf, sha256 };

export interface ManifestCall {
  call_id: string;
  platform: string;
  endpoint: string;
  params: Record<string, string> | null;
  fetched_at: string;
  request_id: string | null;
  credits_used: number | null;
  cached: boolean | null;
  replayed: boolean | null;
  /** SHA-256 of the stored answer (its line in answers.jsonl); null: a bulk load kept no answer */
  answer_sha256: string | null;
}

export interface ManifestItem {
  platform: string;
  kind: string;
  id: string;
  calls: string[];
  /** SHA-256 of the item's record in items.csv and in items.jsonl (null in a dehydrated bundle) */
  csv_sha256: string | null;
  jsonl_sha256: string | null;
  /** dehydrated bundles: the item's address (null: none), so a rehydration can read it again singly; absent in full bundles */
  url?: string | null;
}

/** A saved set's authorship in a manifest (issue 29 "who did what"): its author as the set records it (null for sets saved before Loupe kept one), its times in ISO. */
export interface SetSaved {
  author: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * The manifest's `labels` sentence: the item tables (items.csv, items.parquet) show the label in
 * effect, the analyst's override where there is one; the service's own value stays in items.jsonl's
 * record and in the answers; each override is also a row of items.annotations.* with its author.
 */
/** The bundle options' `setSaved` for a target resolved to a saved set (resolveTarget's `set`), none for a query. */
export function setSavedOf(t: { set?: ResultSet }): { setSaved?: SetSaved } {
  if (!t.set) return {};
  const iso = (ms: number) => new Date(ms).toISOString();
  return { setSaved: { author: t.set.author, created_at: iso(t.set.createdAt), updated_at: iso(t.set.updatedAt) } };
}

export const LABELS =
  "The item tables (items.csv, items.parquet) show each label in effect: the analyst's override where there is one, else the service's label. The service's own labels are in items.jsonl (`record.computed`, the override beside it in `overrides`) and in the answers; each override is also a row of items.annotations.* (type override), with its author and time.";

/**
 * The bundle's items by availability (issue 29; docs/datasets.md "The manifest"): the attrition
 * report of its query (`loupe dataset attrition`, archive/attrition.ts), by network and publication
 * month, and its totals. Available: re-checked and found; unavailable: found missing
 * (`missing_since`); not re-checked: neither.
 */
export interface ManifestAttrition {
  available: number;
  unavailable: number;
  not_rechecked: number;
  rows: Array<{ platform: string; month: string | null; available: number; unavailable: number; not_rechecked: number }>;
}

export function manifestAttrition(rows: readonly AttritionRow[]): ManifestAttrition {
  const out: ManifestAttrition = { available: 0, unavailable: 0, not_rechecked: 0, rows: [] };
  for (const r of rows) {
    out.available += r.available;
    out.unavailable += r.unavailable;
    out.not_rechecked += r.notRechecked;
    out.rows.push({
      platform: r.platform,
      month: r.month,
      available: r.available,
      unavailable: r.unavailable,
      not_rechecked: r.notRechecked,
    });
  }
  return out;
}

export interface Manifest {
  format: typeof BUNDLE_FORMAT;
  format_version: 1;
  created_at: string;
  loupe_version: string;
  spec_variants_tested: string[];
  set: string | null;
  /** the saved set's own record, when the bundle is of a saved set: who saved (or last changed) it and when; absent otherwise */
  set_saved?: SetSaved;
  query: LibraryQuery;
  dehydrated: boolean;
  /** where the service's labels and the analyst's overrides are (the sentence `LABELS` below) */
  labels: string;
  /** the items by availability after re-checks (since 2026-11-28; absent in bundles written before) */
  attrition?: ManifestAttrition;
  files: Array<{ path: string; sha256: string; bytes: number }>;
  calls: ManifestCall[];
  items: ManifestItem[];
  /** what re-collecting a dehydrated bundle would cost its recipient today: one plan over an empty archive (`priced_as`) */
  rehydration_quote?: RehydrationQuote | null;
  root_sha256: string;
}

/** The root hash: the files, then the calls, then the items, chained (docs/datasets.md "The manifest"). */
export function rootHash(m: Omit<Manifest, 'root_sha256'>): string {
  const meta = [
    m.format,
    m.format_version,
    m.created_at,
    m.loupe_version,
    m.spec_variants_tested,
    m.set,
    m.query,
    m.dehydrated,
    m.labels,
    m.rehydration_quote ?? null,
    // after the fields every bundle has, so a bundle written before it verifies unchanged
    ...(m.set_saved !== undefined ? [m.set_saved] : []),
    ...(m.attrition !== undefined ? [{ attrition: m.attrition }] : []),
  ];
  let h = sha256(JSON.stringify(meta));
  for (const f of m.files) h = sha256(`${h}\nfile\n${f.path}\n${f.sha256}`);
  for (const c of m.calls)
    h = sha256(
      `${h}\ncall\n${c.call_id}\n${c.platform}/${c.endpoint}\n${JSON.stringify(c.params)}\n${c.fetched_at}\n${c.request_id}\n${c.credits_used}\n${c.cached}\n${c.replayed}\n${c.answer_sha256}`,
    );
  for (const i of m.items)
    h = sha256(
      `${h}\nitem\n${itemKeyOf(i)}\n${i.calls.join(' ')}\n${i.csv_sha256}\n${i.jsonl_sha256}${i.url !== undefined ? `\n${i.url}` : ''}`,
    );
  return h;
}

/**
 * RFC 4180 records of a CSV text (a BOM dropped): each record's raw text (without its line end) and
 * its cells. Quotes may hold commas and line ends.
 */
export function* csvRecords(text: string): IterableIterator<{ raw: string; cells: string[]; line: number }> {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < text.length) {
    const start = i;
    const startLine = line;
    const cells: string[] = [];
    let cell = '';
    let quoted = false;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (quoted) {
        if (ch === '"' && text[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (ch === '"') quoted = false;
        else {
          if (ch === '\n') line++;
          cell += ch;
        }
      } else if (ch === '"') quoted = true;
      else if (ch === ',') {
        cells.push(cell);
        cell = '';
      } else if (ch === '\r' || ch === '\n') break;
      else cell += ch;
    }
    cells.push(cell);
    const raw = text.slice(start, i);
    if (text[i] === '\r' && text[i + 1] === '\n') i += 2;
    else if (i < text.length) i++;
    line++;
    if (raw.length > 0) yield { raw, cells, line: startLine };
  }
}

export interface BundleExportOptions {
  out: string;
  query: LibraryQuery;
  set?: string | null;
  /** the saved set's record when `set` names one */
  setSaved?: SetSaved;
  version: string;
  variants: string[];
  dehydrated?: boolean;
  now: number;
  quote?: (calls: ManifestCall[]) => Promise<Manifest['rehydration_quote']>;
  /** tests: Zip64 fields everywhere in a .zip bundle */
  zip64?: 'auto' | 'always';
  /** cancels a .zip bundle between chunks (the partial files are removed) */
  signal?: AbortSignal;
  /** progress: the file being written and the rows written to it so far */
  onStep?: (step: string, rows: number) => void;
  /** tests: the export workers (0: none) and the rows per group */
  threads?: number;
  groupSize?: number;
}

/** A folder bundle goes into a new or empty folder: refused before anything is written. */
async function refuseNonEmpty(out: string): Promise<void> {
  const there = await readdir(out).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [];
    if (e.code === 'ENOTDIR')
      throw new LoupeError('validation', `${out} is a file; a bundle goes into a new or empty folder, or a new .zip.`);
    throw e;
  });
  if (there.length > 0)
    throw new LoupeError('validation', `${out} is not empty; a bundle goes into a new or empty folder (nothing was written).`);
}

const NEWLINE = new Uint8Array([0x0a]);

/**
 * Writes answers.jsonl (each stored answer's bytes as kept, read as bytes: never decoded and
 * encoded again); returns the calls as the manifest lists them, and the file's SHA-256 and size,
 * taken as it is written (not read back).
 */
async function writeAnswers(
  archive: Archive,
  query: LibraryQuery,
  path: string | null,
  signal?: AbortSignal,
): Promise<{ calls: ManifestCall[]; file: { sha256: string; bytes: number } | null }> {
  const calls: ManifestCall[] = [];
  const ws = path ? createWriteStream(path) : null;
  // a write that fails (a full disk) rejects the wait in hand; unheard, its 'error' event ended the
  // process with a stack and left the hidden folder behind
  const failed = new Promise<never>((_, rej) => ws?.once('error', rej));
  failed.catch(() => undefined);
  const whole = createHash('sha256');
  let bytes = 0;
  try {
    for (const c of archive.datasets.bundleCalls(query)) {
      if (signal?.aborted) throw new LoupeError('cancelled', 'The bundle was cancelled; nothing of it was kept.');
      const { answer, ...rest } = c;
      if (ws && answer !== null) {
        whole.update(answer).update(NEWLINE);
        bytes += answer.length + 1;
        ws.write(answer);
        if (!ws.write(NEWLINE)) await Promise.race([new Promise<void>((r) => ws.once('drain', () => r())), failed]);
      }
      calls.push({
        call_id: rest.callId,
        platform: rest.platform,
        endpoint: rest.endpoint,
        params: rest.params,
        fetched_at: new Date(rest.fetchedAt).toISOString(),
        request_id: rest.requestId,
        credits_used: rest.creditsUsed,
        cached: rest.cached,
        replayed: rest.replayed,
        answer_sha256: answer === null ? null : sha256(answer),
      });
    }
    if (ws) await Promise.race([new Promise<void>((res, rej) => ws.end((e?: Error | null) => (e ? rej(e) : res()))), failed]);
  } catch (e) {
    ws?.destroy();
    throw e;
  }
  return { calls, file: ws ? { sha256: whole.digest('hex'), bytes } : null };
}

/**
 * Writes a bundle: a new or empty folder, or — `out` ending in `.zip` — one new zip file holding
 * the same files. Either is written under a temporary name beside `out` (a hidden folder, then
 * for a zip a `.partial` file) and renamed into place only when complete, so a failure, a cancel
 * or a stopped process never leaves a half-written bundle under its name; a cancel that comes
 * before the rename keeps nothing.
 */
export async function exportBundle(archive: Archive, o: BundleExportOptions): Promise<Manifest> {
  const zip = isZipPath(o.out);
  if (zip) {
    const exists = await stat(o.out).then(
      () => true,
      () => false,
    );
    if (exists)
      throw new LoupeError('validation', `${o.out} already exists; a .zip bundle is written to a new file (nothing was written).`);
  } else await refuseNonEmpty(o.out);
  // pid-tagged hidden names: what a killed export left for this name is removed here (partial-files.ts)
  const tmp = freshPartial(o.out, 'parts');
  const partial = partialPath(o.out);
  const stopped = () => {
    if (o.signal?.aborted) throw new LoupeError('cancelled', 'The bundle was cancelled; nothing of it was kept.');
  };
  try {
    await mkdir(tmp, { recursive: true });
    const m = await writeFolder(archive, { ...o, out: tmp });
    if (zip) {
      o.onStep?.(basename(o.out), 0);
      const names = [...m.files.map((f) => f.path), MANIFEST];
      await writeZip(
        partial,
        names.map((name) => ({ name, path: join(tmp, name) })),
        { zip64: o.zip64, now: new Date(o.now), signal: o.signal, onFile: (name) => o.onStep?.(`${basename(o.out)}: ${name}`, 0) },
      );
      stopped();
      await rename(partial, o.out);
    } else {
      stopped();
      await rmdir(o.out).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e; // the empty folder it goes into (refused above when not empty)
      });
      await rename(tmp, o.out);
    }
    return m;
  } catch (e) {
    stopped();
    // a full disk, a file-size limit, a read-only folder: the storage sentence (exit 6), not "Internal error"
    throw (
      fileWriteError(e, o.out, {
        what: 'the bundle',
        wayOut: 'free some space or choose another folder, then export it again (nothing of it was kept)',
      }) ?? e
    );
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await rm(partial, { force: true });
  }
}

/** The companion tables read once for the two formats (kept in memory between them: ~150 bytes a reading). */
function readOnce(src: CompanionSource): CompanionSource {
  let history: unknown[][] | null = null;
  let annotations: unknown[][] | null = null;
  return { history: () => (history ??= [...src.history()]), annotations: () => (annotations ??= [...src.annotations()]) };
}

async function writeFolder(archive: Archive, o: BundleExportOptions): Promise<Manifest> {
  const { writeBundleTables } = await bundleTables();
  const dehydrated = o.dehydrated ?? false;
  const files: Array<{ path: string; sha256: string; bytes: number }> = [];
  // one pass over the rows: items.csv, items.jsonl and items.parquet (on the export workers), each
  // row's hashes, calls and metric history (bundle-facts.ts) and each file's hash as written;
  // meanwhile this thread writes the answers and lists the calls (on two cores, neither waits)
  const facts = new BundleFacts();
  const tables = dehydrated
    ? null
    : writeBundleTables(archive.iterateExportRows(o.query), {
        dir: o.out,
        signal: o.signal,
        onProgress: (n) => o.onStep?.('items.csv, items.jsonl, items.parquet', n),
        onPart: (rids, part) => facts.add(rids, part),
        threads: o.threads,
        groupSize: o.groupSize,
        // a worker writes the metric history files once its groups are done (bundle-history.ts)
        history: true,
      });
  const rest = (async () => {
    const answers = dehydrated ? null : join(o.out, 'answers.jsonl');
    const { calls, file } = await writeAnswers(archive, o.query, answers, o.signal);
    if (file) files.push({ path: 'answers.jsonl', ...file });
    return calls;
  })();
  // both finish before anything is returned or removed
  const [t, r] = await Promise.allSettled([tables, rest]);
  timelineMark('bundle pass done');
  if (t.status === 'rejected') throw t.reason;
  const history = t.value?.history ?? Promise.resolve(null);
  try {
    if (r.status === 'rejected') throw r.reason;
    return await manifestOf(archive, o, { calls: r.value, files, tables: t.value, facts, history });
  } finally {
    await history; // a worker writing the history files is done before the folder is renamed or removed
  }
}

/** The manifest's items read from the archive (the pass could not give them), each with its rows' hashes. */
function scannedItems(
  archive: Archive,
  query: BundleExportOptions['query'],
  t: BundleTablesResult | null,
  dehydrated: boolean,
): ManifestItem[] {
  const rows = t?.hashes ?? null;
  return [...archive.datasets.bundleItems(query)].map((i) => {
    const h = rows?.get(itemKeyOf(i));
    return {
      platform: i.platform,
      kind: i.kind,
      id: i.id,
      calls: i.calls,
      csv_sha256: h?.[0] ?? null,
      jsonl_sha256: h?.[1] ?? null,
      ...(dehydrated ? { url: i.url } : {}),
    };
  });
}

/**
 * When a bundle was written, on the service's clock: `now`, and never before the latest call or
 * re-check mark it carries. A process that has not yet heard the service's clock (its `Date`
 * headers: docs/watchlists.md "One clock") reads the computer's, which lags a sandbox moved ahead;
 * a bundle dated before its own marks would fail verify ("a mark dated after the bundle's own
 * writing", bundle-check.ts markVerdict).
 */
export function writtenAt(now: number, calls: readonly ManifestCall[], latestMark: number | null): number {
  let at = latestMark === null ? now : Math.max(now, latestMark);
  for (const c of calls) {
    const t = Date.parse(c.fetched_at);
    if (t > at) at = t;
  }
  return at;
}

/** The rest of a bundle once its pass is done: the companion tables, the manifest's items, the manifest. */
async function manifestOf(
  archive: Archive,
  o: BundleExportOptions,
  p: {
    calls: ManifestCall[];
    files: Manifest['files'];
    tables: BundleTablesResult | null;
    facts: BundleFacts;
    history: Promise<Array<{ path: string; sha256: string; bytes: number }> | null>;
  },
): Promise<Manifest> {
  const dehydrated = o.dehydrated ?? false;
  const { calls, files, tables: t, facts } = p;
  // the items and their history from the pass; scanned as before when it could not give them
  const folded = t !== null && facts.complete;
  const scans = companionsOf(archive.datasets, { query: o.query });
  const companions = readOnce(folded ? { history: () => facts.history(), annotations: scans.annotations } : scans);
  // the annotations (and the history when no worker wrote it), each file hashed as it is written
  const companionFiles = async (history: boolean): Promise<void> => {
    for (const format of ['csv', 'parquet'] as const)
      for (const f of await writeCompanions(format, join(o.out, `items.${format}`), companions, {
        signal: o.signal,
        history,
        annotations: !history,
      }))
        files.push({ path: basename(f.path), sha256: f.sha256, bytes: f.bytes });
  };
  if (!dehydrated) await companionFiles(false);
  if (t) files.push(...t.files);
  const items = folded ? facts.items() : scannedItems(archive, o.query, t, dehydrated);
  if (!dehydrated) {
    // the timeline (LOUPE_EXPORT_TIMELINE): how long this thread waits for the worker's history files
    timelineMark('bundle wait history');
    const written = await p.history;
    timelineMark('bundle history in');
    if (written) files.push(...written);
    else {
      // no worker wrote them: this thread, from the pass's facts (or the scans)
      await companionFiles(true);
    }
  }
  const fileRows = files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // counted in the pass (the rows the tables hold); scanned when it could not give them
  const marks = folded ? facts.attritionMarks() : archive.datasets.attritionMarks(o.query);
  const body: Omit<Manifest, 'root_sha256'> = {
    format: BUNDLE_FORMAT,
    format_version: 1,
    created_at: new Date(writtenAt(o.now, calls, marks.latestMark)).toISOString(),
    loupe_version: o.version,
    spec_variants_tested: o.variants,
    set: o.set ?? null,
    ...(o.setSaved !== undefined ? { set_saved: o.setSaved } : {}),
    query: o.query,
    dehydrated,
    labels: LABELS,
    attrition: manifestAttrition(marks.rows),
    files: fileRows,
    calls,
    items,
    ...(dehydrated && o.quote ? { rehydration_quote: await o.quote(calls) } : {}),
  };
  const manifest: Manifest = { ...body, root_sha256: rootHash(body) };
  // JSON.stringify(manifest, null, 1) + '\n', its items a slice at a time (manifest-text.ts); the pass's as their text
  await writeJsonInPieces(join(o.out, MANIFEST), { ...manifest }, 'items', folded ? (factItemText as (e: never) => string) : undefined);
  timelineMark('bundle manifest');
  return manifest;
}
