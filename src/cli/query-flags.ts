/** Command-line flags → the library query model (src/shared/query.ts), shared by `export` and friends. */
import { ENGAGEMENT_FIELDS, libraryQuerySchema, type LabelCondition, type LibraryQuery, type TermCondition } from '../shared/query';
import { TERM_FIELDS } from '../shared/analysis';
import { parseSearch, SearchSyntaxError } from '../shared/search-syntax';
import type { Command } from 'commander';
import { UsageError, type CliContext } from './context';

export interface QueryFlags {
  platform?: string[];
  kind?: string[];
  language?: string[];
  author?: string;
  text?: string;
  since?: string;
  until?: string;
  label?: string[];
  relevance?: string;
  tag?: string[];
  watchlist?: string;
  thread?: string;
  term?: string[];
  sort?: string;
  growth?: string;
  growthSince?: string;
  growthUntil?: string;
  growthMin?: string;
  growthMax?: string;
}

/** `7d`, `12h`, `2w` before now, or a date / ISO time */
function growthTime(name: string, v: string): string | number {
  const m = /^(\d+)([hdw])$/.exec(v.trim());
  if (m) return Date.now() - Number(m[1]) * { h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as 'h' | 'd' | 'w'];
  return checkedDate(name, v);
}

function growthFlags(f: QueryFlags): LibraryQuery['growth'] {
  const any = f.growth ?? f.growthSince ?? f.growthUntil ?? f.growthMin ?? f.growthMax;
  if (any === undefined) return undefined;
  if (!f.growth || !(ENGAGEMENT_FIELDS as readonly string[]).includes(f.growth))
    throw new UsageError(`--growth names the count that grew: one of ${ENGAGEMENT_FIELDS.join(', ')} (with --growth-since 7d or a date)`);
  if (!f.growthSince) throw new UsageError('--growth needs --growth-since: a date, an ISO time, or 7d / 12h / 2w before now.');
  const num = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new UsageError(`${name} takes a number; got "${v}".`);
    return n;
  };
  return {
    field: f.growth as (typeof ENGAGEMENT_FIELDS)[number],
    from: growthTime('--growth-since', f.growthSince),
    ...(f.growthUntil ? { to: growthTime('--growth-until', f.growthUntil) } : {}),
    ...(f.growthMin !== undefined ? { min: num('--growth-min', f.growthMin) } : {}),
    ...(f.growthMax !== undefined ? { max: num('--growth-max', f.growthMax) } : {}),
  };
}

/** `hashtags=#travel`, `bigrams=wayfarer air`: a frequency table's click-through condition (its JSON `query.terms`) */
export function parseTermCondition(s: string): TermCondition {
  const eq = s.indexOf('=');
  const field = eq > 0 ? s.slice(0, eq).trim() : '';
  const value = eq > 0 ? s.slice(eq + 1).trim() : '';
  if (!(TERM_FIELDS as readonly string[]).includes(field) || value === '')
    throw new UsageError(
      `--term looks like field=value with field one of ${TERM_FIELDS.join(', ')} (e.g. hashtags=#travel, bigrams=wayfarer air); got "${s}".`,
    );
  return { field: field as TermCondition['field'], value };
}

const OPS: Array<[string, LabelCondition['op']]> = [
  ['>=', 'gte'],
  ['<=', 'lte'],
  ['!=', 'neq'],
  ['>', 'gt'],
  ['<', 'lt'],
  ['=', 'eq'],
];

/** `intent.label=complaining`, `sponsored.p>=0.5`, `sentiment.label=negative` */
export function parseLabelCondition(s: string): LabelCondition {
  for (const [sym, op] of OPS) {
    const i = s.indexOf(sym);
    if (i <= 0) continue;
    const lhs = s.slice(0, i).trim();
    const rhs = s.slice(i + sym.length).trim();
    const dot = lhs.indexOf('.');
    if (dot <= 0 || dot === lhs.length - 1 || rhs === '') break;
    let value: string | number | boolean = rhs;
    if (rhs === 'true' || rhs === 'false') value = rhs === 'true';
    else if (rhs !== '' && Number.isFinite(Number(rhs))) value = Number(rhs);
    return { family: lhs.slice(0, dot), field: lhs.slice(dot + 1), op, value };
  }
  throw new UsageError(
    `A label condition looks like family.field=value or family.field>=number (e.g. intent.label=complaining, sponsored.p>=0.5); got "${s}".`,
  );
}

/** `photo_net/post/123` (as `loupe library` prints an item) or `photo_net/123`: the post whose thread is read */
export function threadFlag(v: string): { platform: string; id: string } {
  const parts = v.trim().split('/');
  const [platform, id] = parts.length === 2 ? [parts[0], parts[1]] : parts.length >= 3 ? [parts[0], parts.slice(2).join('/')] : ['', ''];
  if (!platform || !id)
    throw new UsageError(
      `--thread takes a post's key as \`loupe library\` prints it, network/kind/id (e.g. photo_net/post/3141592653589793238) or network/id; got "${v}".`,
    );
  return { platform, id };
}

function dateFlag(name: string, v: string | undefined): string | undefined {
  return v === undefined ? undefined : checkedDate(name, v);
}

/** a date (YYYY-MM-DD) or an ISO 8601 time, else a usage error naming the flag */
function checkedDate(name: string, v: string): string {
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) || Number.isNaN(Date.parse(v)))
    throw new UsageError(`${name} takes a date (YYYY-MM-DD) or an ISO 8601 time; got "${v}".`);
  return v;
}

export function buildLibraryQuery(f: QueryFlags): LibraryQuery {
  const q: LibraryQuery = {};
  if (f.platform?.length) q.platforms = f.platform;
  if (f.kind?.length) q.kinds = f.kind;
  if (f.language?.length)
    q.languages = f.language
      .flatMap((l) => l.split(','))
      .map((l) => l.trim())
      .filter(Boolean);
  if (f.author) q.author = f.author;
  if (f.text) {
    // boolean search (OR, NOT, parentheses, "phrases", NEAR): a malformed query stops here, before anything is read
    try {
      parseSearch(f.text);
    } catch (e) {
      if (e instanceof SearchSyntaxError) throw new UsageError(`--text: ${e.message.replace(/^Search: /, '')}`);
      throw e;
    }
    q.text = f.text;
  }
  q.since = dateFlag('--since', f.since);
  q.until = dateFlag('--until', f.until);
  if (q.since === undefined) delete q.since;
  if (q.until === undefined) delete q.until;
  if (f.label?.length) q.labels = f.label.map(parseLabelCondition);
  if (f.relevance !== undefined) {
    const r = Number(f.relevance);
    if (!Number.isFinite(r) || r < 0 || r > 1) throw new UsageError(`--relevance takes a number from 0 to 1; got "${f.relevance}".`);
    q.relevanceMin = r;
  }
  if (f.tag?.length) q.tags = f.tag;
  if (f.thread !== undefined) q.thread = threadFlag(f.thread);
  if (f.term?.length) q.terms = f.term.map(parseTermCondition);
  // a name or an id, as given: watchlistResolved turns a name into its id
  if (f.watchlist) q.source = { type: 'watchlist', id: f.watchlist };
  const growth = growthFlags(f);
  if (growth) q.growth = growth;
  if (f.sort) {
    const [field, dir = 'desc'] = f.sort.split(':');
    if (dir !== 'asc' && dir !== 'desc') throw new UsageError(`--sort takes field:asc or field:desc; got "${f.sort}".`);
    (q as Record<string, unknown>).sort = { field, dir }; // checked by the schema below
  }
  const parsed = libraryQuerySchema.safeParse(q);
  if (!parsed.success) throw new UsageError(`Invalid query: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

/**
 * The query with its `--watchlist` (a name or an id) as the watchlist's id, asked through the
 * contract (`library.watchlistId`); a name no watchlist has is a usage error (exit 2).
 */
export async function watchlistResolved(q: LibraryQuery, c: Pick<CliContext, 'call'>): Promise<LibraryQuery> {
  if (q.source?.type !== 'watchlist') return q;
  const given = q.source.id;
  const id = await c.call('library.watchlistId', { name: given });
  if (id === null) throw new UsageError(`No watchlist named "${given}"; see: loupe watch list`);
  return { ...q, source: { type: 'watchlist', id } };
}

/** The library query of the flags, its watchlist resolved (watchlistResolved). */
export function libraryQueryOf(f: QueryFlags, c: Pick<CliContext, 'call'>): Promise<LibraryQuery> {
  return watchlistResolved(buildLibraryQuery(f), c);
}

/** a repeatable option's values, in order */
export function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

/** The library query flags, one definition for every command that takes a library query (export, library, analyze). */
export function withQueryFlags(cmd: Command): Command {
  return cmd
    .option('--platform <p>', 'network (repeatable)', collect)
    .option('--kind <k>', 'record kind: post, comment, profile, … (repeatable)', collect)
    .option('--language <tag>', 'item language: en, ja, pt (also pt-BR), und = not known (repeatable, or comma-separated)', collect)
    .option('--author <a>', 'author username or id')
    .option('--text <t>', 'full-text search: words (all must appear), OR, NOT, ( ), "exact phrase", prefix*, a NEAR b')
    .option('--since <date>', 'published on or after (YYYY-MM-DD or ISO)')
    .option('--until <date>', 'published on or before (YYYY-MM-DD = whole day)')
    .option('--label <cond>', 'label condition, e.g. intent.label=complaining or sponsored.p>=0.5 (repeatable)', collect)
    .option('--relevance <min>', 'relevance ≥ min (0..1)')
    .option('--tag <t>', 'has this tag (repeatable)', collect)
    .option('--watchlist <name>', 'items a watchlist fetched (name or id)')
    .option('--thread <post>', 'the comments and replies under a post (its key: network/kind/id, as `loupe library` prints it)')
    .option(
      '--growth <count>',
      'growth of a count over a period (views, likes, comments, shares, saves), from the metric history; with --growth-since',
    )
    .option('--growth-since <when>', 'start of the growth period: a date, an ISO time, or 7d / 12h / 2w before now')
    .option('--growth-until <when>', 'end of the growth period (default: the latest reading)')
    .option('--growth-min <n>', 'only items whose count grew at least this much over the period')
    .option('--growth-max <n>', 'only items whose count grew at most this much (negative: fell)')
    .option(
      '--term <field=value>',
      "the text holds this term as frequency tables count it, e.g. hashtags=#travel or bigrams=wayfarer air (repeatable; a table row's query.terms)",
      collect,
    );
}
