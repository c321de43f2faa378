/**
 * From an API record to archive columns; merging a later answer into the stored
 * record; flattening labels into (family, field, value) rows.
 */
import type { ItemRef } from '../ports';
import { idText, recordFields, timeOf } from '../../shared/record-fields';
import { splitsOtherwise } from '../../shared/spaceless';

export type Json = Record<string, unknown>;

export function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const str = idText;

/**
 * Record kinds that describe an account (a profile, a user, a group, an advertiser's page, a
 * channel): the spec names their fields under `author.*` (author.followers, author.bio,
 * author.ext.group.*), so such a record's `author.id` IS its own id when it has no `id`.
 * For every other kind (posts, comments, replies, places, tracks…) `author.id` is someone else:
 * the one who wrote it (docs/archive.md "Item ids").
 */
const ACCOUNT_KINDS = new Set(['profile', 'user', 'account', 'group', 'advertiser', 'page', 'channel']);

/**
 * Id of a record found under `kind` (its list item's key, or the single answer's key): its own
 * `id`; for an account record (ACCOUNT_KINDS) without one, `author.id`. Never another record's
 * id: a post or comment without an `id` has none (issue 24 #3: two such posts were archived as
 * one row under their author's id). Always a string.
 */
export function recordId(rec: Json, kind?: string): string | null {
  const id = str(rec.id);
  if (id !== null && id !== '') return id;
  if (kind !== undefined && ACCOUNT_KINDS.has(kind) && isObj(rec.author)) {
    const a = str(rec.author.id);
    if (a !== null && a !== '') return a;
  }
  return null;
}

export interface Columns {
  published_at: number | null;
  author_id: string | null;
  author_username: string | null;
  author_display_name: string | null;
  text: string | null;
  url: string | null;
  lang: string | null;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
  parent_id: string | null;
  post_kind: string | null;
  labels: string | null;
  relevance_p: number | null;
  /** the author's followers (a profile's own; migration 0010) */
  followers: number | null;
  /** `ext.post_title` or `title` (migration 0010) */
  title: string | null;
  /** 1 when the full-text index may split the text otherwise than the frequency tables (src/shared/spaceless.ts; migration 0012) */
  spaceless: 0 | 1;
}

export function parseTime(v: unknown): number | null {
  return timeOf(v);
}

/**
 * Columns the library filters, sorts, searches and exports by, extracted from the (merged)
 * record by the one definition the renderer shows too (src/shared/record-fields.ts).
 */
export function extractColumns(kind: string, rec: Json): Columns {
  const f = recordFields(kind, rec);
  const computed = isObj(rec.computed) ? rec.computed : null;
  const labels = computed && isObj(computed.labels) ? computed.labels : null;
  const relevance = computed && isObj(computed.relevance) ? computed.relevance : null;
  return {
    published_at: f.publishedAt,
    author_id: f.author.id,
    author_username: f.author.username,
    author_display_name: f.author.displayName,
    text: f.text,
    url: f.url,
    lang: f.lang,
    views: f.engagement.views,
    likes: f.engagement.likes,
    comments: f.engagement.comments,
    shares: f.engagement.shares,
    saves: f.engagement.saves,
    parent_id: f.parentId,
    post_kind: f.postKind,
    labels: labels && Object.keys(labels).length > 0 ? JSON.stringify(labels) : null,
    relevance_p: relevance && typeof relevance.p === 'number' ? relevance.p : null,
    followers: f.followers,
    title: f.title,
    spaceless: splitsOtherwise(f.text) ? 1 : 0,
  };
}

/**
 * Merge a later answer for the same item into the stored record.
 * The new answer wins, except that a null/absent value never erases a known one
 * (a later answer may come from an endpoint that lacks a field, from a `fit=goal`
 * stub, or with judgments off). Label families are replaced whole (a fresh
 * judgment of `intent` replaces the old `intent`), families the new answer lacks
 * are kept; the same for `labels_evidence`; `relevance` is replaced when present.
 */
export function mergeRecord(oldRec: Json, newRec: Json): Json {
  const out = deepMerge(oldRec, newRec, 0);
  const oc = isObj(oldRec.computed) ? oldRec.computed : null;
  const nc = isObj(newRec.computed) ? newRec.computed : null;
  if (oc || nc) {
    const computed: Json = { ...(oc ?? {}), ...(nc ?? {}) };
    for (const key of ['labels', 'labels_evidence']) {
      const o = oc && isObj(oc[key]) ? oc[key] : null;
      const n = nc && isObj(nc[key]) ? nc[key] : null;
      if (o || n) {
        const m: Json = { ...(o ?? {}) };
        if (n) for (const [fam, v] of Object.entries(n)) if (v !== null && v !== undefined) m[fam] = v;
        computed[key] = m;
      } else if (oc && key in oc) computed[key] = oc[key];
    }
    const or = oc && isObj(oc.relevance) ? oc.relevance : null;
    const nr = nc && isObj(nc.relevance) ? nc.relevance : null;
    if (nr || or) computed.relevance = nr ?? or;
    out.computed = computed;
  }
  return out;
}

function deepMerge(o: Json, n: Json, depth: number): Json {
  const out: Json = { ...o };
  for (const [k, v] of Object.entries(n)) {
    if (v === null || v === undefined) {
      if (!(k in out)) out[k] = v ?? null;
      continue;
    }
    const ov = out[k];
    if (depth < 4 && isObj(v) && isObj(ov) && k !== 'computed') out[k] = deepMerge(ov, v, depth + 1);
    else out[k] = v;
  }
  return out;
}

/**
 * A scalar label value as bound into item_labels.value (booleans → 1/0).
 * Integers are bound as BigInt so SQLite stores them as INTEGER (better-sqlite3
 * binds every JS number as REAL; the untyped column would keep 1 as 1.0).
 */
export type LabelScalar = string | number | bigint | Buffer;

/** How a null label value is stored: the empty blob (sorts after every number and text). */
export const NULL_LABEL: Buffer = Buffer.alloc(0);

export function toLabelScalar(v: unknown): LabelScalar | undefined {
  if (v === null) return NULL_LABEL;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return NULL_LABEL;
    return Number.isSafeInteger(v) ? BigInt(v) : v;
  }
  if (typeof v === 'string') return v;
  return undefined; // arrays / objects: not indexed as a leaf
}

/**
 * Scalar leaves of computed.labels: family → field (nested objects flatten with
 * dots: `aspect.price`), arrays are not indexed. Overrides replace/add leaves.
 */
export function flattenLabels(
  labels: Json | null,
  overrides?: Array<{ family: string; field: string; value: unknown }>,
): Array<[string, string, LabelScalar]> {
  const map = new Map<string, [string, string, LabelScalar]>();
  if (labels) {
    for (const [family, fam] of Object.entries(labels)) {
      if (!isObj(fam)) continue;
      walkLeaves(fam, '', 0, (field, v) => map.set(family + '\u0000' + field, [family, field, v]));
    }
  }
  if (overrides) {
    for (const o of overrides) {
      const v = toLabelScalar(o.value);
      map.set(o.family + '\u0000' + o.field, [o.family, o.field, v === undefined ? JSON.stringify(o.value) : v]);
    }
  }
  return [...map.values()];
}

function walkLeaves(obj: Json, prefix: string, depth: number, emit: (field: string, v: LabelScalar) => void): void {
  for (const [k, v] of Object.entries(obj)) {
    const name = prefix ? `${prefix}.${k}` : k;
    if (isObj(v)) {
      if (depth < 2) walkLeaves(v, name, depth + 1, emit);
      continue;
    }
    const s = toLabelScalar(v);
    if (s !== undefined) emit(name, s);
  }
}

/** Apply overrides onto a labels object (nested `a.b` fields written into nested objects). */
export function applyOverrides(labels: Json | null, overrides: Array<{ family: string; field: string; value: unknown }>): Json | null {
  if (overrides.length === 0) return labels;
  const out: Json = structuredClone(labels ?? {});
  for (const o of overrides) {
    const fam = isObj(out[o.family]) ? (out[o.family] as Json) : (out[o.family] = {} as Json);
    const parts = o.field.split('.');
    let cur: Json = fam;
    for (let i = 0; i < parts.length - 1; i++) {
      const next = cur[parts[i]];
      cur = isObj(next) ? next : (cur[parts[i]] = {} as Json);
    }
    cur[parts[parts.length - 1]] = o.value;
  }
  return out;
}

/** Read a (possibly dotted) field of a label family. */
export function labelValue(labels: Json | null, family: string, field: string): unknown {
  let cur: unknown = labels ? labels[family] : undefined;
  for (const p of field.split('.')) {
    if (!isObj(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

const DATA_NOT_RECORDS = new Set([
  'items',
  'total',
  'truncated',
  'ext',
  'dropped',
  'labels',
  'relevance',
  'walk',
  'scan',
  'held_back',
  'switch_receipts',
  'hydration',
  'dry_run',
  'estimate',
  'pagination',
  'warnings',
  'debug',
  'meta',
]);
const POST_KEYS = new Set(['post', 'comment', 'reply', 'video', 'tweet', 'event', 'question', 'clip', 'reel', 'short']);
const PROFILE_KEYS = new Set(['profile', 'user', 'account']);
/** Keys that name a record inside a list item (spec: post, profile, comment, user, group, advertiser records). */
const RECORD_KEYS = new Set([
  ...POST_KEYS,
  ...PROFILE_KEYS,
  'group',
  'advertiser',
  'page',
  'channel',
  'hashtag',
  'place',
  'location',
  'track',
  'music',
  'playlist',
  'story',
  'highlight',
  'board',
  'subreddit',
  'effect',
  'ad',
]);
/** The kinds of item the extraction writes for the record keys it knows (`reply` → comment; an unknown key keeps its own name). */
export const RECORD_KINDS: readonly string[] = [...new Set([...RECORD_KEYS].filter((k) => k !== 'reply'))].sort();

function looksLikePost(rec: Json): boolean {
  return isObj(rec.content) && isObj(rec.engagement);
}

export interface ExtractedItem {
  kind: string;
  id: string;
  record: Json;
  position: number;
}

export interface ReadItems {
  items: ExtractedItem[];
  /** list items with no readable record (no record key with an id): kept raw in the stored answer */
  unreadable: number;
  /** fit=goal stubs (`stub: true`, or ids listed in data.held_back.ids): not rows */
  heldBack: number;
}

/**
 * The record of one list item. The spec's shape is `{ post: {...} }`; other legal shapes put
 * judgments beside the record (`{ post: {...}, computed: {...} }`), use another record kind
 * (`comment`, `user`, `group`, `advertiser`…) or carry extra keys beside it. Judgments found
 * beside the record are merged into its `computed` (the record's own win on conflicts).
 */
function recordOfItem(it: Json, commentPage: boolean): { kind: string; id: string; rec: Json } | null {
  const keys = Object.keys(it);
  // a known record key whose record has an id of its own; else the one object beside extra keys
  // that has one. A record without an id of its own is not readable (never another record's id).
  let kind: string | undefined = keys.find((k) => RECORD_KEYS.has(k) && isObj(it[k]) && recordId(it[k] as Json, k) !== null);
  if (kind === undefined) {
    if (keys.some((k) => RECORD_KEYS.has(k) && isObj(it[k]))) return null;
    const objs = keys.filter((k) => k !== 'computed' && isObj(it[k]) && recordId(it[k] as Json, k) !== null);
    if (objs.length !== 1) return null;
    kind = objs[0];
  }
  const id = recordId(it[kind] as Json, kind) as string;
  let rec = it[kind] as Json;
  const beside = it.computed;
  if (isObj(beside)) {
    const own = isObj(rec.computed) ? (rec.computed as Json) : {};
    rec = { ...rec, computed: { ...beside, ...own } };
  }
  return { kind: itemKind(kind, rec, commentPage), id, rec };
}

/** Comment label families (spec): judged only on comment pages. */
const COMMENT_FAMILIES = new Set(['sentiment', 'spam', 'question', 'purchase_intent', 'complaint', 'toxic', 'low_quality']);
/** Post label families (spec). */
const POST_FAMILIES = new Set(['sponsored', 'intent', 'niche', 'mention', 'quality']);
/** Endpoints whose rows are comments or replies (`post/comments`, `tweet/replies`, `search/comments`…). */
const COMMENT_ENDPOINT = /(^|\/)(comments?|replies|comment\/replies|repl(y|ies))(\/|$)/;

/** Whether an endpoint path (`tweet/replies`, `/v1/forum_net/post/comments`) returns comments or replies. */
export function isCommentEndpoint(endpoint: string): boolean {
  return COMMENT_ENDPOINT.test(endpoint.replace(/^\/?v1\/[^/]+\//, ''));
}

function onlyCommentFamilies(families: Iterable<string>): boolean {
  let comment = false;
  for (const f of families) {
    if (POST_FAMILIES.has(f)) return false;
    if (COMMENT_FAMILIES.has(f)) comment = true;
  }
  return comment;
}

/**
 * Whether an answer is a page of comments, from what the answer itself says (no endpoint needed):
 * the comment label families judged (`data.labels.judged` / `billed`), or the comment-page
 * extras (`data.ext.total_comments`, `data.scan`). Issue 14 #3: the spec's list shape is
 * `{ post: <post record> }` for comments too, so the item key alone calls every comment a post.
 */
function isCommentPage(data: Json, endpoint?: string): boolean {
  if (endpoint && isCommentEndpoint(endpoint)) return true;
  const labels = isObj(data.labels) ? data.labels : null;
  if (labels) {
    const fams = [...(Array.isArray(labels.judged) ? labels.judged : []), ...(Array.isArray(labels.billed) ? labels.billed : [])].filter(
      (x): x is string => typeof x === 'string',
    );
    if (fams.length && onlyCommentFamilies(fams)) return true;
  }
  const ext = isObj(data.ext) ? data.ext : null;
  return !!ext && typeof ext.total_comments === 'number';
}

/**
 * The archive kind of a record found under `key`: `comment` for comments and replies — a
 * `comment`/`reply` key, a post record whose `kind` says comment or reply, a post record judged
 * with comment label families only, or any post record of a comment page — else the key.
 */
function itemKind(key: string, rec: Json, commentPage: boolean): string {
  if (key === 'comment' || key === 'reply') return 'comment';
  if (!POST_KEYS.has(key) || PROFILE_KEYS.has(key)) return key;
  const own = typeof rec.kind === 'string' ? rec.kind.toLowerCase() : null;
  if (own === 'comment' || own === 'reply') return 'comment';
  if (key !== 'post') return key;
  if (commentPage) return 'comment';
  const labels = isObj(rec.computed) && isObj(rec.computed.labels) ? rec.computed.labels : null;
  if (labels && onlyCommentFamilies(Object.keys(labels))) return 'comment';
  return key;
}

/**
 * Every archivable record of a data payload: `data.items[]` (see recordOfItem), and
 * single-object answers `data.<key>` that carry an id (`post` → kind post, `comment`/`reply` →
 * comment; `profile`/`user` → profile; others keep their key), with the same counts as
 * `readItems`. Comments are kind `comment` however the list item is keyed (itemKind); `endpoint`
 * (the path called, optional) is one more hint for that.
 */
export function itemsOfData(data: unknown, endpoint?: string): ExtractedItem[] {
  return readItems(data, endpoint).items;
}

export function readItems(data: unknown, endpoint?: string): ReadItems {
  const out: ExtractedItem[] = [];
  let unreadable = 0;
  let heldBack = 0;
  if (!isObj(data)) return { items: out, unreadable, heldBack };
  const held = isObj(data.held_back) && Array.isArray(data.held_back.ids) ? new Set(data.held_back.ids.map((x) => String(x))) : null;
  const commentPage = isCommentPage(data, endpoint);
  if (Array.isArray(data.items)) {
    data.items.forEach((it, position) => {
      const r = isObj(it) ? recordOfItem(it, commentPage) : null;
      if (!r) {
        unreadable++;
        return;
      }
      const id = r.id;
      if (r.rec.stub === true || (held?.has(id) && Object.keys(r.rec).length <= 6 && !isObj(r.rec.content))) {
        heldBack++;
        return;
      }
      out.push({ kind: r.kind, id, record: r.rec, position });
    });
  }
  for (const [key, rec] of Object.entries(data)) {
    if (DATA_NOT_RECORDS.has(key) || !isObj(rec)) continue;
    const id = recordId(rec, PROFILE_KEYS.has(key) ? 'profile' : key);
    if (id === null) {
      // a record the answer names (a post, a comment, a profile…) with no id of its own: kept raw
      // in the stored answer and counted; other objects (a transcript, stats) are not records
      if (RECORD_KEYS.has(key) || looksLikePost(rec)) unreadable++;
      continue;
    }
    const kind =
      key === 'comment' || key === 'reply' || ((POST_KEYS.has(key) || looksLikePost(rec)) && itemKind('post', rec, false) === 'comment')
        ? 'comment'
        : POST_KEYS.has(key) || looksLikePost(rec)
          ? 'post'
          : PROFILE_KEYS.has(key)
            ? 'profile'
            : key;
    out.push({ kind, id, record: rec, position: 0 });
  }
  return { items: out, unreadable, heldBack };
}

export function refKey(r: ItemRef): string {
  return `${r.platform}\u0000${r.kind}\u0000${r.id}`;
}

export type LabelLeaf = [string, string, LabelScalar];

function leafKey([family, field, v]: LabelLeaf): string {
  const t = Buffer.isBuffer(v) ? 'n:' : typeof v === 'string' ? `s:${v}` : `d:${String(v)}`;
  return `${family}\u0000${field}\u0000${t}`;
}

/** Leaves to delete and to insert to go from one effective label set to another. */
export function diffLeaves(before: LabelLeaf[], after: LabelLeaf[]): { del: LabelLeaf[]; ins: LabelLeaf[] } {
  const b = new Map(before.map((l) => [leafKey(l), l]));
  const a = new Map(after.map((l) => [leafKey(l), l]));
  return {
    del: [...b].filter(([k]) => !a.has(k)).map(([, l]) => l),
    ins: [...a].filter(([k]) => !b.has(k)).map(([, l]) => l),
  };
}
