/**
 * Spec-variants mode. The default sandbox is ONE reading of the spec; each variant switches one
 * rule to another reading the spec also allows, so a client can be tested against all of them.
 * Variants combine. The table in docs/sandbox.md names the spec sentence that allows each one.
 *
 * Everything that only changes the SHAPE of an answer lives here as a pure "presenter" applied
 * when the answer is sent: the cache, idempotency records and the fit=goal recall store keep the
 * canonical (default-reading) body, so switching variants at runtime reshapes replays too.
 * Behavioural variants (cursor-error, native-ignores-foreign, drop-charged, strict-ceiling,
 * idempotency-per-key, no-cache-window, cache-exact-cursor, cache-window-purchase, cache-window-slides) are
 * read by http.ts / engine.ts / base.ts through `VariantSet.has()`.
 */
import type { EndpointDef } from '../types';

export const SPEC_VARIANTS = [
  {
    name: 'judgments-beside',
    description:
      'List items carry judgments beside the record: { post: <record without computed>, computed: { labels, relevance, labels_evidence } }.',
  },
  {
    name: 'record-kinds',
    description:
      'List items are keyed by record kind (comment, user, profile, group, advertiser...) instead of always post, and carry extra keys beside the record (position, source).',
  },
  {
    name: 'lean-envelope',
    description:
      'Success envelopes omit every optional field: pagination.stopped_at, charge_reason, cached, free_call, idempotent_replay (unless true), unavailable, data.total, data.truncated, data.ext.',
  },
  {
    name: 'extra-fields',
    description:
      'Unknown extra fields everywhere: envelope (meta, trace_id), pagination (cursor_expires_at), data (debug) and every record (x_unknown).',
  },
  {
    name: 'null-remaining',
    description: 'credits_remaining is null on every data answer, success included.',
  },
  {
    name: 'cursor-error',
    description:
      'A rejected cursor (expired, edited, foreign) is refused with a 4xx that is not INVALID_CURSOR: 400 BAD_REQUEST, 410 CURSOR_EXPIRED, 422 UNPROCESSABLE in turn; still free.',
  },
  {
    name: 'own-params-only',
    description:
      "The catalogue and OpenAPI list only each endpoint's own parameters (shared and judgment parameters are left out); the server still accepts them.",
  },
  {
    name: 'native-ignores-foreign',
    description:
      'A service next_cursor sent in a native paging parameter (continuationToken, max_cursor, next_max_id, max_id, after, next_page_id, pagination_token) is ignored: the first page is served again and charged.',
  },
  {
    name: 'drop-charged',
    description:
      'An answer whose body was dropped mid-way is charged anyway (delivered as far as the service knows): owned in the cache, and a same-key retry replays it free.',
  },
  {
    name: 'strict-ceiling',
    description:
      'A same-key retry after ANY unsuccessful original (an error answer such as 429/500/503, not only an undelivered one) is charged at the reserved ceiling.',
  },
  {
    name: 'idempotency-per-key',
    description:
      'An Idempotency-Key belongs to the API key that sent it, not the account: the same Idempotency-Key from another key of the account is a new call, billed like any other (a lost original is not replayed for it).',
  },
  {
    name: 'no-cache-window',
    description: 'The catalogue reports cache_ttl_seconds 0 for every endpoint and the server caches nothing: every repeat is charged.',
  },
  {
    name: 'cache-exact-cursor',
    description:
      'The cache knows an answer by the exact call, cursor included: a page read under another cursor is another call (not owned, charged), even where it names a page the account owns. Default: by the page position the cursor names.',
  },
  {
    name: 'cache-window-purchase',
    description:
      "An owner's cache window is its own, from its purchase (a charged miss, a 2-credit shared-cache read, a free call), whatever the shared entry's age. Default: the shared entry's window, from its fetch.",
  },
  {
    name: 'cache-window-slides',
    description:
      "An owner's cache window is its own and restarts at each free repeat (an owner read from the cache, or a replay): a repeat inside the window keeps the call free for another window. Default: the shared entry's window, from its fetch.",
  },
] as const satisfies ReadonlyArray<{ name: string; description: string }>;

export type SpecVariant = (typeof SPEC_VARIANTS)[number]['name'];

const NAMES: ReadonlySet<string> = new Set(SPEC_VARIANTS.map((v) => v.name));

/** Check a list of variant names; throws an Error naming the unknown ones and the known ones. */
export function parseVariants(list: unknown): SpecVariant[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string'))
    throw new Error(`variants must be an array of names; known variants: ${[...NAMES].join(', ')}`);
  const names = (list as string[]).map((s) => s.trim()).filter((s) => s !== '');
  const unknown = names.filter((n) => !NAMES.has(n));
  if (unknown.length > 0)
    throw new Error(
      `unknown spec variant${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `'${n}'`).join(', ')}; known variants: ${[...NAMES].join(', ')}`,
    );
  return [...new Set(names)] as SpecVariant[];
}

export class VariantSet {
  private set = new Set<SpecVariant>();
  constructor(list?: unknown) {
    this.replace(list);
  }
  /** Replace the active variants (validated; throws on an unknown name, leaving the set unchanged). */
  replace(list: unknown): void {
    this.set = new Set(parseVariants(list));
  }
  has(v: SpecVariant): boolean {
    return this.set.has(v);
  }
  list(): SpecVariant[] {
    return SPEC_VARIANTS.map((v) => v.name).filter((n) => this.set.has(n));
  }
  get size(): number {
    return this.set.size;
  }
}

type Json = Record<string, unknown>;

/** Params the own-params-only catalogue leaves out (the spec's shared and judgment parameters). */
export const NOT_OWN_PARAMS: ReadonlySet<string> = new Set([
  'dry_run',
  'cursor',
  'since',
  'until',
  'stop_at_id',
  'recent_days',
  'max_pages',
  'include',
  'trim',
  'exclude_pinned',
  'judgments',
  'label',
  'exclude',
  'brand',
  'brand_description',
  'offer',
  'label_evidence',
  'fit',
  'goal',
  'fit_tokens',
  'relevance',
  'relevance_threshold',
  'relevant_to',
]);

/** Native paging params whose service-token value native-ignores-foreign ignores. */
export const NATIVE_TOKEN_PARAMS: ReadonlySet<string> = new Set([
  'continuationToken',
  'max_cursor',
  'next_max_id',
  'max_id',
  'after',
  'next_page_id',
  'pagination_token',
]);

/** The refusals cursor-error cycles through, in order. */
export const CURSOR_ERRORS: ReadonlyArray<{ status: number; type: string }> = [
  { status: 400, type: 'BAD_REQUEST' },
  { status: 410, type: 'CURSOR_EXPIRED' },
  { status: 422, type: 'UNPROCESSABLE' },
];

/** record-kinds: the natural key of a list item of `def` whose canonical key is `key`. */
export function kindKey(def: EndpointDef | undefined, key: string): string {
  if (!def) return key;
  if (def.feed === 'comments' || def.feed === 'replies' || def.feed === 'search_comments') return 'comment';
  if (key === 'profile' || def.feed === 'accounts') return def.profileKey ?? 'user';
  if (def.feed === 'groups') return 'group';
  if (def.feed === 'advertisers') return 'advertiser';
  return key;
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface PresentContext {
  def?: EndpointDef;
  requestId: string;
  /** Sandbox now, ms. */
  now: number;
  /** Lifetime of a cursor issued now, ms (extra-fields' pagination.cursor_expires_at). */
  cursorTtlMs?: number;
}

/** Does any presenter variant change a success body? */
function shapes(v: VariantSet): boolean {
  return v.has('judgments-beside') || v.has('record-kinds') || v.has('lean-envelope') || v.has('extra-fields') || v.has('null-remaining');
}

/** The success envelope as the active variants send it (never mutates `body`). */
export function presentSuccess(body: Json, v: VariantSet, ctx: PresentContext): Json {
  if (!shapes(v)) return body;
  const out = structuredClone(body);
  const data = isObj(out.data) ? out.data : null;
  if (data && Array.isArray(data.items) && (v.has('judgments-beside') || v.has('record-kinds') || v.has('extra-fields'))) {
    data.items = (data.items as unknown[]).map((it, i) => {
      if (!isObj(it)) return it;
      const key = Object.keys(it)[0];
      const rec = it[key];
      if (!isObj(rec)) return it;
      const item: Json = {};
      const newKey = v.has('record-kinds') ? kindKey(ctx.def, key) : key;
      item[newKey] = rec;
      if (v.has('judgments-beside') && rec.computed !== undefined) {
        item.computed = rec.computed;
        delete rec.computed;
      }
      if (v.has('extra-fields')) rec.x_unknown = { note: 'field unknown to the spec', n: i };
      if (v.has('record-kinds')) {
        item.position = i + 1;
        item.source = 'upstream';
      }
      return item;
    });
  }
  if (data && v.has('extra-fields') && ctx.def?.shape === 'single' && ctx.def.singleKey && isObj(data[ctx.def.singleKey]))
    (data[ctx.def.singleKey] as Json).x_unknown = { note: 'field unknown to the spec' };
  if (v.has('lean-envelope')) {
    for (const k of ['charge_reason', 'cached', 'free_call', 'unavailable']) delete out[k];
    if (out.idempotent_replay !== true) delete out.idempotent_replay;
    if (isObj(out.pagination)) delete out.pagination.stopped_at;
    if (data) for (const k of ['total', 'truncated', 'ext']) delete data[k];
  }
  if (v.has('extra-fields')) {
    out.meta = { served_by: 'sandbox', region: 'local-1', variant: 'extra-fields' };
    out.trace_id = `trc_${ctx.requestId}`;
    if (isObj(out.pagination))
      out.pagination.cursor_expires_at = out.pagination.next_cursor
        ? new Date(ctx.now + (ctx.cursorTtlMs ?? 3600_000)).toISOString()
        : null;
    if (data) data.debug = { upstream_ms: 12, shard: 'a1', note: 'field unknown to the spec' };
  }
  if (v.has('null-remaining')) out.credits_remaining = null;
  return out;
}

/** An error envelope as the active variants send it. */
export function presentError(body: Json, v: VariantSet, requestId: string): Json {
  if (!v.has('extra-fields') && !v.has('null-remaining')) return body;
  const out: Json = { ...body };
  if (v.has('extra-fields')) {
    out.meta = { served_by: 'sandbox', region: 'local-1', variant: 'extra-fields' };
    out.trace_id = `trc_${requestId}`;
  }
  if (v.has('null-remaining')) out.credits_remaining = null;
  return out;
}

/** GET /v1/endpoints as the active variants serve it (own-params-only, no-cache-window). */
export function presentCatalogue(cat: unknown, v: VariantSet): unknown {
  if (!(v.has('own-params-only') || v.has('no-cache-window')) || !isObj(cat)) return cat;
  const out = structuredClone(cat);
  if (Array.isArray(out.endpoints)) {
    for (const e of out.endpoints as unknown[]) {
      if (!isObj(e)) continue;
      if (v.has('own-params-only') && Array.isArray(e.params))
        e.params = (e.params as unknown[]).filter((p) => !(isObj(p) && typeof p.name === 'string' && NOT_OWN_PARAMS.has(p.name)));
      if (v.has('no-cache-window')) e.cache_ttl_seconds = 0;
    }
  }
  if (v.has('no-cache-window') && isObj(out.pricing) && Array.isArray(out.pricing.free))
    out.pricing.free = (out.pricing.free as unknown[]).filter((x) => !(typeof x === 'string' && /cache window/.test(x)));
  return out;
}

/** GET /v1/openapi.json as the active variants serve it. */
export function presentOpenApi(doc: unknown, v: VariantSet): unknown {
  if (!(v.has('own-params-only') || v.has('no-cache-window')) || !isObj(doc)) return doc;
  const out = structuredClone(doc);
  if (isObj(out.paths)) {
    for (const item of Object.values(out.paths)) {
      const op = isObj(item) && isObj(item.get) ? item.get : null;
      if (!op) continue;
      if (v.has('own-params-only') && Array.isArray(op.parameters))
        op.parameters = (op.parameters as unknown[]).filter((p) => !(isObj(p) && typeof p.name === 'string' && NOT_OWN_PARAMS.has(p.name)));
      if (v.has('no-cache-window') && 'x-cache-ttl-seconds' in op) op['x-cache-ttl-seconds'] = 0;
    }
  }
  return out;
}
