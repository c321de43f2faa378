/**
 * `verify` and `import` of a dataset bundle (bundle.ts; docs/datasets.md "Bundles").
 *
 * verify: the manifest's root hash recomputed; every file against its SHA-256 (a missing file, a
 * changed one, a file the manifest does not list); the item tables row by row (items.csv and
 * items.jsonl: an edited row, a dropped row, an added row — each named by its item key and line);
 * every answer line against its call's SHA-256; and, given the archive that holds the answers,
 * every call's answer against the archive's stored answer and every item there.
 *
 * import: a bundle that verifies, merged into another archive — the answers stored as they were
 * (each call once: an answer this archive already holds is not stored again; each item once, merged
 * by its key), the calls recorded in `imported_calls` (kept apart from the ledger: nothing was paid
 * here), the metric history merged, the annotations added with their own authors and times, and
 * the conflicts (a note or an override this archive has with another value) listed, not written.
 */
import type { ImportReport, VerifyReport } from '../../shared/contract-datasets';
import { LoupeError } from '../../shared/errors';

export type { ImportReport, VerifyReport };
import type { Archive, Marks as ItemMarks } from '../archive';
import type { ItemRef } from '../ports';
import type { Envelope } from '../../shared/api-types';
import { paramsHash, canonicalParams } from '../api';
import { unneutraliseCell } from '../export';
import { csvRecords, MANIFEST, rootHash, type Manifest } from './bundle';
import { csvRowHashes, itemKeyOf, jsonlKey, jsonlLines, jsonlRowHashes, sha256, type RowHash, type RowMarks } from './row-hashes';

const decoder = new TextDecoder();
import { openBundle, type BundleSource } from './bundle-source';

/** Runs `f` over the bundle at `path` (a folder or a .zip), closing it after. */
async function withBundle<T>(path: string, f: (src: BundleSource) => Promise<T>): Promise<T> {
  const src = await openBundle(path);
  try {
    return await f(src);
  } finally {
    await src.close();
  }
}

const text = async (src: BundleSource, name: string): Promise<string> => (await src.read(name))?.toString('utf8') ?? '';

export async function readManifest(src: BundleSource): Promise<Manifest> {
  const b = await src.read(MANIFEST);
  if (b === null) throw new LoupeError('validation', `${src.where} holds no ${MANIFEST}: it is not a Loupe dataset bundle.`);
  const text = b.toString('utf8');
  try {
    const m = JSON.parse(text) as Manifest;
    if (m.format !== 'loupe-dataset-bundle' || !Array.isArray(m.files) || !Array.isArray(m.calls) || !Array.isArray(m.items))
      throw new Error('not a bundle manifest');
    return m;
  } catch (e) {
    throw new LoupeError('validation', `${MANIFEST} in ${src.where} is not a Loupe bundle manifest (${(e as Error).message}).`);
  }
}

function rowProblems(file: string, items: Manifest['items'], field: 'csv_sha256' | 'jsonl_sha256', got: RowHash[]): string[] {
  // the usual case: every row where the manifest lists it, as exported (no map of keys needed)
  if (got.length === items.length && got.every((r, k) => r.sha === items[k][field] && r.key === itemKeyOf(items[k]))) return [];
  const want = new Map(items.map((i) => [itemKeyOf(i), i[field]]));
  const out: string[] = [];
  const seen = new Set<string>();
  for (const r of got) {
    if (r.key === null || !want.has(r.key)) {
      out.push(`${file}: line ${r.line} is a row the manifest does not list${r.key ? ` (${r.key})` : ''}: added.`);
      continue;
    }
    if (seen.has(r.key)) out.push(`${file}: line ${r.line} repeats ${r.key}: added.`);
    else if (want.get(r.key) !== r.sha) out.push(`${file}: line ${r.line} (${r.key}) differs from the row exported: edited.`);
    seen.add(r.key);
  }
  for (const k of want.keys()) if (!seen.has(k)) out.push(`${file}: the row of ${k} is missing: dropped.`);
  return out;
}

/** answers.jsonl's lines against the calls' answer hashes, in the manifest's call order. */
function answerProblems(m: Manifest, b: Uint8Array): string[] {
  const out: string[] = [];
  const lines = [...jsonlLines(b)];
  const calls = m.calls.filter((c) => c.answer_sha256 !== null);
  if (lines.length !== calls.length)
    out.push(
      `answers.jsonl: ${lines.length} answer(s), the manifest lists ${calls.length}: ${lines.length > calls.length ? 'added' : 'dropped'}.`,
    );
  calls.forEach((c, k) => {
    if (k < lines.length && sha256(lines[k].bytes) !== c.answer_sha256)
      out.push(`answers.jsonl: line ${k + 1}, the answer of call ${c.call_id} (${c.platform}/${c.endpoint}), differs: edited.`);
  });
  return out;
}

/** items.csv's re-check marks by item key (verify reads them beside the rows' hashes) */
type Marks = Map<string, RowMarks>;

/**
 * Every file against its SHA-256 (a missing, a changed, an unlisted file) and, unless the bundle is
 * dehydrated, items.csv and items.jsonl row by row and answers.jsonl answer by answer; items.csv's
 * re-check marks counted against the manifest's attrition. One file is held at a time, as bytes
 * (never decoded whole). Returns items.csv's marks by key too (null: none read).
 */
async function fileProblems(src: BundleSource, m: Manifest): Promise<{ problems: string[]; marks: Marks | null }> {
  const problems: string[] = [];
  let marks: Marks | null = null;
  const listed = new Set(m.files.map((f) => f.path));
  for (const name of src.names)
    if (name !== MANIFEST && !listed.has(name)) problems.push(`${name}: a file the manifest does not list: added.`);
  for (const f of m.files) {
    const b = await src.read(f.path);
    if (b === null) {
      problems.push(`${f.path}: missing.`);
      continue;
    }
    if (sha256(b) !== f.sha256) problems.push(`${f.path}: its SHA-256 differs from the manifest's: changed.`);
    if (m.dehydrated) continue;
    if (f.path === 'items.csv') {
      const csv = csvRowHashes(b, { marks: true });
      problems.push(...rowProblems('items.csv', m.items, 'csv_sha256', csv.rows));
      marks = marksByKey(csv.rows, csv.marks);
      problems.push(...attritionProblems(m, csv.marks));
    } else if (f.path === 'items.jsonl') problems.push(...rowProblems('items.jsonl', m.items, 'jsonl_sha256', jsonlRowHashes(b)));
    else if (f.path === 'answers.jsonl') problems.push(...answerProblems(m, b));
  }
  return { problems, marks };
}

function marksByKey(rows: RowHash[], marks: RowMarks[] | null): Marks | null {
  if (marks === null) return null;
  const out: Marks = new Map();
  rows.forEach((r, k) => r.key !== null && out.set(r.key, marks[k]));
  return out;
}

type Counts = [available: number, unavailable: number, notRechecked: number];
const stateOf = (checked: string, missing: string): 0 | 1 | 2 => (missing !== '' ? 1 : checked !== '' ? 0 : 2);
const countsText = (c: Counts): string => `${c[0]} available, ${c[1]} unavailable, ${c[2]} not re-checked`;

/** items.csv's marks counted by network against the manifest's attrition (as `loupe dataset attrition` counts). */
function attritionProblems(m: Manifest, marks: RowMarks[] | null): string[] {
  if (m.attrition === undefined) return []; // a bundle written before the manifest counted it
  if (marks === null) return ['items.csv: no checked_at and missing_since columns, yet the manifest counts attrition: changed.'];
  const want = new Map<string, Counts>();
  for (const r of m.attrition.rows) {
    const c = want.get(r.platform) ?? [0, 0, 0];
    want.set(r.platform, [c[0] + r.available, c[1] + r.unavailable, c[2] + r.not_rechecked]);
  }
  const got = new Map<string, Counts>();
  for (const r of marks) {
    const c = got.get(r.platform) ?? [0, 0, 0];
    c[stateOf(r.checked, r.missing)]++;
    got.set(r.platform, c);
  }
  const out: string[] = [];
  for (const platform of new Set([...want.keys(), ...got.keys()])) {
    const w = want.get(platform) ?? [0, 0, 0];
    const g = got.get(platform) ?? [0, 0, 0];
    if (w.join() !== g.join())
      out.push(`items.csv: ${platform} has ${countsText(g)}; the manifest's attrition counts ${countsText(w)}: changed.`);
  }
  return out;
}

const isoCell = (t: number | null): string => (t === null ? '' : new Date(t).toISOString());
const marksText = (checked: string, missing: string): string =>
  missing !== ''
    ? `unavailable since ${missing} (re-checked ${checked || 'never'})`
    : checked !== ''
      ? `available when re-checked ${checked}`
      : 'not re-checked';

/**
 * One item's re-check marks in a bundle (its items.csv cells, ISO or empty) against the archive's
 * (ms or null), the bundle written at `written` (ms): `same`; `later` when they differ only as a
 * re-check after the bundle was written explains (the bundle is older than the archive's marks —
 * not a problem: a researcher who keeps re-checking must still be able to verify the bundle a paper
 * cites); else `changed`. After a later re-check, what the bundle could have known is still checked:
 * its own re-check no later than its writing, and a missing mark the archive holds from before it
 * (`missing_since` is kept until a reading clears it) in the bundle as well.
 */
export function markVerdict(
  bundle: { checked: string; missing: string },
  archive: readonly [number | null, number | null],
  written: number,
): 'same' | 'later' | 'changed' {
  // a re-check the bundle claims after its own writing: it could not have known it
  if (bundle.checked !== '' && !(Date.parse(bundle.checked) <= written)) return 'changed';
  if (bundle.missing !== '' && !(Date.parse(bundle.missing) <= written)) return 'changed';
  if (bundle.checked === isoCell(archive[0]) && bundle.missing === isoCell(archive[1])) return 'same';
  if (archive[0] === null || !(archive[0] > written)) return 'changed';
  if (archive[1] !== null && archive[1] <= written && bundle.missing !== isoCell(archive[1])) return 'changed';
  return 'later';
}

/** items.csv's re-check marks against the archive's, item by item (one query per thousand; markVerdict). */
function markProblems(a: Archive, m: Manifest, marks: Marks): { problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const later: string[] = [];
  const written = Date.parse(m.created_at);
  const held = a.datasets.marksOf(m.items);
  for (const [key, r] of marks) {
    const h = held.get(key);
    if (h === undefined) continue; // named by archiveProblems: not in the archive
    const verdict = markVerdict(r, h, written);
    if (verdict === 'later') later.push(key);
    else if (verdict === 'changed')
      problems.push(`${key}: items.csv says ${marksText(r.checked, r.missing)}; the archive: ${marksText(isoCell(h[0]), isoCell(h[1]))}.`);
  }
  const notes =
    later.length === 0
      ? []
      : [
          `${later.length.toLocaleString('en-US')} item(s) re-checked in the archive after the bundle was written (${m.created_at}); the bundle keeps the marks it had then: ${later.slice(0, 5).join(', ')}${later.length > 5 ? ', …' : ''}.`,
        ];
  return { problems, notes };
}

/** Verifies the bundle at `path`: a folder or a .zip (docs/datasets.md "Verify"). */
export async function verifyBundle(path: string, o: { archive?: Archive; root?: string } = {}): Promise<VerifyReport> {
  return withBundle(path, (src) => verifySource(src, o));
}

async function verifySource(src: BundleSource, o: { archive?: Archive; root?: string }, manifest?: Manifest): Promise<VerifyReport> {
  const m = manifest ?? (await readManifest(src));
  const { root_sha256: claimed, ...body } = m;
  const root = rootHash(body);
  const problems: string[] = [];
  if (root !== claimed) problems.push(`${MANIFEST}: its root hash does not match its contents: the manifest was edited.`);
  if (o.root !== undefined && o.root !== root)
    problems.push(`the root hash is ${root}, not the ${o.root} you gave: this is another bundle, or it was changed.`);
  const files = await fileProblems(src, m);
  problems.push(...files.problems);
  if (o.archive) problems.push(...archiveProblems(o.archive, m));
  const notes: string[] = [];
  if (o.archive && files.marks) {
    const marks = markProblems(o.archive, m, files.marks);
    problems.push(...marks.problems);
    notes.push(...marks.notes);
  }
  return { ok: problems.length === 0, root, problems, notes, items: m.items.length, calls: m.calls.length, files: m.files.length };
}

/** Every call's answer against the archive's (each stored answer read and hashed once) and every item there (one query per thousand). */
function archiveProblems(a: Archive, m: Manifest): string[] {
  const out: string[] = [];
  for (const c of m.calls) {
    if (c.answer_sha256 === null) continue;
    const held = a.datasets.storedAnswer(c.call_id);
    if (held === null) out.push(`call ${c.call_id} (${c.platform}/${c.endpoint}): the archive does not hold its answer.`);
    else if (sha256(held) !== c.answer_sha256)
      out.push(`call ${c.call_id} (${c.platform}/${c.endpoint}): the archive's answer differs from the bundle's.`);
  }
  for (const i of a.datasets.missingItems(m.items)) out.push(`${itemKeyOf(i)}: not in the archive.`);
  return out;
}

/** A bundle's manifest and its verification (files and rows; no archive): what a rehydration reads. */
export async function readVerifiedManifest(path: string): Promise<{ manifest: Manifest; report: VerifyReport }> {
  return withBundle(path, async (src) => {
    const manifest = await readManifest(src);
    return { report: await verifySource(src, {}, manifest), manifest };
  });
}

/** Merges a verified bundle into `archive`; refuses (nothing written) when it does not verify. */
export async function importBundle(path: string, archive: Archive, now: number): Promise<ImportReport> {
  return withBundle(path, (src) => importSource(src, archive, now));
}

/** items.jsonl lines ingested per batch (one transaction each, as the archive's own bulk loads) */
const IMPORT_BATCH = 1000;

async function importSource(src: BundleSource, archive: Archive, now: number): Promise<ImportReport> {
  const m = await readManifest(src);
  // files by hash and rows by hash (bytes, no decoding): a tampered bundle is refused before anything is written
  const v = await verifySource(src, {}, m);
  if (!v.ok)
    throw new LoupeError('validation', `The bundle does not verify; nothing was imported:\n${v.problems.map((p) => `  ${p}`).join('\n')}`);
  if (m.dehydrated)
    throw new LoupeError(
      'validation',
      'A dehydrated bundle holds no items, only their keys and the calls that collected them (manifest.json, with what re-collecting them would cost): nothing was imported.',
    );
  const before = archive.count({});
  const bundleId = `bundle:${v.root.slice(0, 16)}`;
  const lines = [...jsonlLines((await src.read('answers.jsonl')) ?? new Uint8Array(0))];
  const withAnswer = m.calls.filter((c) => c.answer_sha256 !== null);
  let stored = 0;
  let alreadyHeld = 0;
  withAnswer.forEach((c, k) => {
    if (archive.datasets.hasResponse(c.call_id)) return void alreadyHeld++;
    const fetchedAt = Date.parse(c.fetched_at);
    archive.storeResponse(
      {
        callId: c.call_id,
        platform: c.platform,
        endpoint: c.endpoint,
        paramsHash: paramsHash(`${c.platform}/${c.endpoint}?${canonicalParams(c.params ?? {})}`),
        fetchedAt,
        envelope: JSON.parse(decoder.decode(lines[k].bytes)) as Envelope,
      },
      bundleId,
      null,
    );
    archive.datasets.recordImportedCall(
      bundleId,
      {
        callId: c.call_id,
        platform: c.platform,
        endpoint: c.endpoint,
        params: c.params,
        fetchedAt,
        requestId: c.request_id,
        creditsUsed: c.credits_used,
        cached: c.cached,
        replayed: c.replayed,
        answerSha256: c.answer_sha256,
      },
      now,
    );
    stored++;
  });
  // items no answer delivered (bulk loads): from their records, those this archive does not hold yet
  const answeredCalls = new Set(withAnswer.map((c) => c.call_id));
  const answered = new Set(m.items.filter((i) => i.calls.some((id) => answeredCalls.has(id))).map(itemKeyOf));
  const marks = await ingestItemLines(src, archive, answered);
  // what the bundle's re-checks found, merged with this archive's (never deleting, never paying)
  const rechecks = marks.length > 0 ? archive.datasets.mergeMarksOf(marks) : 0;
  const readings = await mergeHistory(src, archive);
  const ann = await mergeAnnotations(src, archive);
  return {
    root: v.root,
    calls: { stored, alreadyHeld },
    items: { before, after: archive.count({}), inBundle: m.items.length },
    readings,
    rechecks,
    ...ann,
  };
}

/**
 * items.jsonl's lines: the items no answer delivered ingested from their records (`answered`: the
 * keys an answer holds; those this archive holds skipped), in batches; returns every line's re-check
 * marks (the lines that have any).
 */
async function ingestItemLines(
  src: BundleSource,
  archive: Archive,
  answered: Set<string>,
): Promise<Array<{ ref: ItemRef; marks: ItemMarks }>> {
  let batch: Uint8Array[] = [];
  const ingest = (): void => {
    const records = batch.map(
      (l) => JSON.parse(decoder.decode(l)) as { platform: string; kind: string; id: string; record: Record<string, unknown> },
    );
    batch = [];
    const held = archive.datasets.heldItems(records);
    const rest = records.filter((r) => !held.has(itemKeyOf(r)));
    if (rest.length > 0) archive.ingestItems(rest.map((r) => ({ platform: r.platform, kind: r.kind, record: r.record })));
  };
  const marks: Array<{ ref: ItemRef; marks: ItemMarks }> = [];
  for (const l of jsonlLines((await src.read('items.jsonl')) ?? new Uint8Array(0))) {
    const mark = marksOfLine(l.bytes);
    if (mark) marks.push(mark);
    const key = jsonlKey(l.bytes);
    if (key !== null && answered.has(key)) continue;
    batch.push(l.bytes);
    if (batch.length >= IMPORT_BATCH) ingest();
  }
  if (batch.length > 0) ingest();
  return marks;
}

/** the end of an envelope's line as export writes it (rows.ts): its re-check marks */
const MARKS_TAIL = /,"checked_at":(null|"[^"\\]*"),"missing_since":(null|"[^"\\]*")\}$/;

/**
 * An items.jsonl line's re-check marks (checked_at, missing_since), or null when it has none (both
 * null — most lines, read from the line's last bytes — or a line of a bundle written before them).
 */
function marksOfLine(bytes: Uint8Array): { ref: ItemRef; marks: ItemMarks } | null {
  const m = MARKS_TAIL.exec(decoder.decode(bytes.subarray(Math.max(0, bytes.length - 120))));
  if (m === null || (m[1] === 'null' && m[2] === 'null')) return null;
  const e = JSON.parse(decoder.decode(bytes)) as {
    platform: string;
    kind: string;
    id: string;
    checked_at: string | null;
    missing_since: string | null;
  };
  const ms = (t: string | null) => (t === null ? null : Date.parse(t));
  return { ref: { platform: e.platform, kind: e.kind, id: e.id }, marks: [ms(e.checked_at), ms(e.missing_since)] };
}

async function mergeHistory(src: BundleSource, archive: Archive): Promise<number> {
  const it = csvRecords(await text(src, 'items.history.csv'));
  const head = it.next();
  if (head.done) return 0;
  const cols = head.value.cells.map(unneutraliseCell);
  const at = (n: string) => cols.indexOf(n);
  const num = (s: string | undefined) => (s === undefined || s === '' ? null : Number(unneutraliseCell(s)));
  const byItem = new Map<
    string,
    {
      ref: { platform: string; kind: string; id: string };
      readings: Array<{
        readAt: number;
        views: number | null;
        likes: number | null;
        comments: number | null;
        shares: number | null;
        saves: number | null;
      }>;
    }
  >();
  for (const r of it) {
    const ref = {
      platform: unneutraliseCell(r.cells[at('platform')]),
      kind: unneutraliseCell(r.cells[at('kind')]),
      id: unneutraliseCell(r.cells[at('id')]),
    };
    const k = itemKeyOf(ref);
    let e = byItem.get(k);
    if (e === undefined) byItem.set(k, (e = { ref, readings: [] }));
    e.readings.push({
      readAt: Date.parse(unneutraliseCell(r.cells[at('read_at')])),
      views: num(r.cells[at('views')]),
      likes: num(r.cells[at('likes')]),
      comments: num(r.cells[at('comments')]),
      shares: num(r.cells[at('shares')]),
      saves: num(r.cells[at('saves')]),
    });
  }
  // the items this archive holds (the others were not imported: no answer, no record), in one transaction
  return archive.datasets.mergeReadingsOf([...byItem.values()]);
}

async function mergeAnnotations(
  src: BundleSource,
  archive: Archive,
): Promise<{ annotations: { added: number; same: number }; conflicts: string[] }> {
  const out = { annotations: { added: 0, same: 0 }, conflicts: [] as string[] };
  const it = csvRecords(await text(src, 'items.annotations.csv'));
  const head = it.next();
  if (head.done) return out;
  const cols = head.value.cells.map(unneutraliseCell);
  const cell = (r: string[], n: string) => unneutraliseCell(r[cols.indexOf(n)] ?? '');
  for (const r of it) {
    const type = cell(r.cells, 'type') as 'tag' | 'note' | 'override';
    const raw = cell(r.cells, 'value');
    const value = type === 'tag' ? null : type === 'note' ? raw : raw === '' ? null : (JSON.parse(raw) as unknown);
    const a = {
      platform: cell(r.cells, 'platform'),
      kind: cell(r.cells, 'kind'),
      id: cell(r.cells, 'id'),
      type,
      name: cell(r.cells, 'name'),
      value,
      author: cell(r.cells, 'author') || null,
      at: Date.parse(cell(r.cells, 'at')),
    };
    const res = archive.datasets.importAnnotation(a);
    if (res === 'added') out.annotations.added++;
    else if (res === 'same') out.annotations.same++;
    else if (res === 'conflict')
      out.conflicts.push(
        `${itemKeyOf(a)}: ${type} ${a.name}: this archive has another value; the bundle's (${JSON.stringify(value)}, by ${a.author ?? 'unknown'}) was not written.`,
      );
  }
  return out;
}
