/**
 * The stable, documented CSV column list (docs/export.md "Columns").
 *
 * The list is fixed: it never depends on which fields the exported rows happen to have, so two
 * exports always have the same header in the same order. Every label family field the spec names
 * (post and comment families) has its own column. Whatever a record carries that no column shows
 * (unknown label fields, evidence, author.ext, fields of non-post records...) goes, as JSON, into
 * the last column `extra`, so a CSV export loses nothing.
 */
import type { ExportRow } from '../ports';
import { cell, csvCell } from './cells';

/** Post label families and their fields (spec "Computed judgments", post label table). */
export const POST_LABEL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  sponsored: ['p', 'disclosed', 'undisclosed', 'brand'],
  intent: ['label', 'confidence', 'buyer', 'seller', 'urgency', 'fits_offer'],
  niche: ['label', 'confidence', 'taxonomy'],
  mention: ['about_brand', 'sentiment_level', 'sentiment_score', 'sarcasm', 'aspect', 'first_hand'],
  quality: ['fact_density', 'engagement_bait', 'rage_bait', 'secondhand', 'post_aim'],
  injection: ['flagged', 'p'],
};

/**
 * Comment label families: the spec gives each as a probability 0-1 (`p`). `sentiment` also names
 * the polarity (`label`: negative / neutral / positive, `p` = confidence of that label) and a
 * `score` 0-1 (0 most negative), as the sandbox judge emits; `injection` is shared with posts and
 * keeps the post fields (`flagged`, `p`).
 */
export const COMMENT_LABEL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  sentiment: ['label', 'p', 'score'],
  spam: ['p'],
  question: ['p'],
  purchase_intent: ['p'],
  complaint: ['p'],
  toxic: ['p'],
  low_quality: ['p'],
};

/** All label families with their fields, in column order (post families first). */
export const LABEL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  ...POST_LABEL_FIELDS,
  ...COMMENT_LABEL_FIELDS,
};

/**
 * Per-row view of the record's sub-objects, computed once per row so that the ~80 column getters
 * do not each walk the record from the top (1M-row exports call them ~80M times).
 */
interface RowCtx {
  row: ExportRow;
  rec: Record<string, unknown>;
  /** second-level objects: author, content, engagement, flags, ext, computed */
  sub: Record<string, Record<string, unknown> | undefined>;
  labels: Record<string, unknown> | undefined;
  relevance: Record<string, unknown> | undefined;
}

type Getter = (c: RowCtx) => unknown;

interface ColumnDef {
  name: string;
  get: Getter;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

function ctxOf(row: ExportRow): RowCtx {
  const rec = isObj(row.record) ? row.record : EMPTY;
  const sub: RowCtx['sub'] = {};
  for (const k of ['author', 'content', 'engagement', 'flags', 'ext', 'computed']) {
    const v = rec[k];
    sub[k] = isObj(v) ? v : undefined;
  }
  const computed = sub.computed;
  const labels = computed && isObj(computed.labels) ? computed.labels : undefined;
  const relevance = computed && isObj(computed.relevance) ? computed.relevance : undefined;
  return { row, rec, sub, labels, relevance };
}

/** getter for record.a or record.a.b */
function pathGetter(path: readonly string[]): Getter {
  if (path.length === 1) {
    const [a] = path;
    return (c) => c.rec[a];
  }
  if (path.length === 2) {
    const [a, b] = path;
    return (c) => c.sub[a]?.[b];
  }
  throw new Error(`export: unsupported column path ${path.join('.')}`);
}

function labelGetter(family: string, field: string): Getter {
  return (c) => {
    const f = c.labels?.[family];
    return isObj(f) ? f[field] : undefined;
  };
}

const iso = (ms: number): string | null => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);

/**
 * Record paths shown by a column. Used both to build the getters and to compute `extra`
 * (everything not listed here). A path ending in a leaf means "this value as one cell"
 * (objects and arrays there are written as JSON).
 */
const RECORD_COLUMNS: Array<[column: string, path: string[]]> = [
  ['url', ['url']],
  ['post_kind', ['kind']],
  ['published_at', ['published_at']],
  ['language', ['language']],
  ['author.id', ['author', 'id']],
  ['author.username', ['author', 'username']],
  ['author.display_name', ['author', 'display_name']],
  ['author.avatar_url', ['author', 'avatar_url']],
  ['author.verified', ['author', 'verified']],
  ['author.followers', ['author', 'followers']],
  ['author.following', ['author', 'following']],
  ['author.bio', ['author', 'bio']],
  ['author.joined_at', ['author', 'joined_at']],
  ['content.text', ['content', 'text']],
  ['content.media_urls', ['content', 'media_urls']],
  ['content.thumbnail_url', ['content', 'thumbnail_url']],
  ['content.duration_seconds', ['content', 'duration_seconds']],
  ['engagement.views', ['engagement', 'views']],
  ['engagement.likes', ['engagement', 'likes']],
  ['engagement.comments', ['engagement', 'comments']],
  ['engagement.shares', ['engagement', 'shares']],
  ['engagement.saves', ['engagement', 'saves']],
  ['flags.nsfw', ['flags', 'nsfw']],
  ['flags.spoiler', ['flags', 'spoiler']],
  ['flags.pinned', ['flags', 'pinned']],
  ['flags.likes_hidden', ['flags', 'likes_hidden']],
  ['flags.comments_hidden', ['flags', 'comments_hidden']],
  ['flags.shares_hidden', ['flags', 'shares_hidden']],
  ['flags.views_hidden', ['flags', 'views_hidden']],
  ['flags.saves_hidden', ['flags', 'saves_hidden']],
  ['flags.deleted', ['flags', 'deleted']],
  ['parent_id', ['parent_id']],
  ['ext', ['ext']],
];

const LABEL_COLUMNS: Array<[column: string, path: string[]]> = Object.entries(LABEL_FIELDS).flatMap(
  ([family, fields]) =>
    fields.map((f): [string, string[]] => [`labels.${family}.${f}`, ['computed', 'labels', family, f]]),
);

const RELEVANCE_COLUMNS: Array<[column: string, path: string[]]> = (['p', 'sense', 'depth', 'spam'] as const).map(
  (f): [string, string[]] => [`relevance.${f}`, ['computed', 'relevance', f]],
);

/** Tree of the record paths above: `true` = leaf shown whole, object = descend. */
type PathTree = { [k: string]: PathTree | true };
function buildTree(paths: string[][]): PathTree {
  const root: PathTree = {};
  for (const p of paths) {
    let node = root;
    p.forEach((k, i) => {
      if (i === p.length - 1) node[k] = true;
      else {
        const next = node[k];
        if (next === true) return; // a leaf already covers this subtree
        if (!next) node[k] = {};
        node = node[k] as PathTree;
      }
    });
  }
  return root;
}
const RECORD_TREE: PathTree = buildTree([
  ['id'],
  ...RECORD_COLUMNS.map(([, p]) => p),
  ...LABEL_COLUMNS.map(([, p]) => p),
  ...RELEVANCE_COLUMNS.map(([, p]) => p),
]);

/**
 * What of `obj` no column shows. Keys outside the tree are kept whole. Keys that the tree
 * descends into are kept only for what is not covered beneath them; a non-object value where the
 * tree expects an object (e.g. `computed.labels: null`, "could not be judged") is kept as is.
 */
function rest(obj: Record<string, unknown>, tree: PathTree): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(obj)) {
    const t = tree[k];
    const v = obj[k];
    if (t === true) continue;
    let keep: unknown = undefined;
    if (t === undefined) keep = v;
    else if (isObj(v)) keep = rest(v, t);
    else if (v !== undefined) keep = v;
    if (keep !== undefined) (out ??= {})[k] = keep;
  }
  return out;
}

/** Record fields not shown by any other column (JSON in the `extra` column); undefined when none. */
export function extraOf(row: ExportRow): Record<string, unknown> | undefined {
  return isObj(row.record) ? rest(row.record, RECORD_TREE) : undefined;
}

const DEFS: ColumnDef[] = [
  { name: 'platform', get: (c) => c.row.platform },
  { name: 'kind', get: (c) => c.row.kind },
  { name: 'id', get: (c) => c.row.id },
  ...RECORD_COLUMNS.map(([name, path]) => ({ name, get: pathGetter(path) })),
  // co-authors of collab posts live in ext.coauthors; repeated here as their own column for convenience
  { name: 'coauthors', get: pathGetter(['ext', 'coauthors']) },
  ...LABEL_COLUMNS.map(([name, path]) => ({ name, get: labelGetter(path[2], path[3]) })),
  ...RELEVANCE_COLUMNS.map(([name, path]) => ({ name, get: (c: RowCtx) => c.relevance?.[path[2]] })),
  { name: 'tags', get: (c) => c.row.tags },
  { name: 'note', get: (c) => c.row.note },
  { name: 'overrides', get: (c) => (c.row.overrides && Object.keys(c.row.overrides).length > 0 ? c.row.overrides : null) },
  { name: 'first_seen_at', get: (c) => iso(c.row.firstSeenAt) },
  { name: 'last_seen_at', get: (c) => iso(c.row.lastSeenAt) },
  { name: 'extra', get: (c) => extraOf(c.row) },
];

/** The stable CSV column list, in order. */
export const CSV_COLUMNS: readonly string[] = Object.freeze(DEFS.map((d) => d.name));

const DEF_BY_NAME = new Map(DEFS.map((d) => [d.name, d]));

/** Resolve a column subset (kept in the order given); throws on an unknown name. */
export function resolveColumns(columns?: readonly string[]): ColumnDef[] {
  if (!columns) return DEFS;
  if (columns.length === 0) throw new Error('export: columns must name at least one column');
  const seen = new Set<string>();
  return columns.map((c) => {
    const d = DEF_BY_NAME.get(c);
    if (!d) throw new Error(`export: unknown CSV column '${c}' (see CSV_COLUMNS)`);
    if (seen.has(c)) throw new Error(`export: CSV column '${c}' named twice`);
    seen.add(c);
    return d;
  });
}

/** One row as final CSV cell texts (already neutralised), for the given columns. */
export function rowCells(row: ExportRow, defs: readonly ColumnDef[]): string[] {
  const c = ctxOf(row);
  const out = new Array<string>(defs.length);
  for (let i = 0; i < defs.length; i++) out[i] = cell(defs[i].get(c));
  return out;
}

/** One row as a CSV record (quoted cells, CRLF), for the given columns: `csvRecord(rowCells(...))`, fused. */
export function rowCsv(row: ExportRow, defs: readonly ColumnDef[]): string {
  const c = ctxOf(row);
  let line = csvCell(defs[0].get(c));
  for (let i = 1; i < defs.length; i++) line += ',' + csvCell(defs[i].get(c));
  return line + '\r\n';
}

/**
 * One row flattened to every CSV column: column name → cell text, exactly as written to the file
 * (formatted and neutralised; the CSV quoting is not applied here).
 */
export function flattenForCsv(row: ExportRow): Record<string, string> {
  const cells = rowCells(row, DEFS);
  const out: Record<string, string> = {};
  DEFS.forEach((d, i) => (out[d.name] = cells[i]));
  return out;
}
