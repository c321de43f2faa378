/**
 * A list's lines → the plan's inputs (docs/collect.md "Inputs"). Each line is read with the
 * watchlist import's rules (src/core/resolve) and becomes one call per network it goes to, or a
 * problem with its reason; a line naming what an earlier line named is a duplicate. Nothing is
 * dropped silently: lines read = lines with inputs + duplicate lines + problem lines.
 */
import type { CatalogueEndpoint } from '../../shared/api-types';
import type { CollectDesignParsed, CollectDo, CollectDuplicate, CollectProblem } from '../../shared/contract-collect';
import type { CatalogueApi } from '../api';
import { canonicalParams } from '../api';
import { validateParams } from '../api';
import { accountOf, accountOfAddress, platformOfHost, readAddress, readLines, unquote, type AddressRef } from '../resolve';
import {
  commentSort,
  HASHTAG_PARAMS,
  namesOf,
  pagesFor,
  paramOf,
  pathOf,
  POST_ID_PARAMS,
  POST_URL_PARAMS,
  QUERY_PARAMS,
  targetFor,
  type Target,
} from './targets';

/** One input before it is priced: a call, what it came from, and how duplicates are found. */
export interface Candidate {
  line: number | null;
  text: string;
  label: string;
  platform: string;
  ep: CatalogueEndpoint;
  endpoint: string;
  params: Record<string, string>;
  pages: number;
  key: string;
  rank: number | null;
  feed: boolean;
  /** a set's fan-out: the rank of the post / author / hashtag it came from (0 = the best), for top-K */
  group?: number;
  /** the parameters that name the input (left out of its call's shape, for quotes) */
  idParams?: string[];
}

export interface Resolved {
  candidates: Candidate[];
  problems: CollectProblem[];
  duplicates: CollectDuplicate[];
  read: number;
  column: string | null;
  belowTopK: number;
  warnings: string[];
}

const COLUMNS: Record<'account' | 'post' | 'query' | 'hashtag', string[]> = {
  account: ['handle', 'username', 'user', 'screen_name', 'account', 'author', 'url', 'profile_url', 'profile', 'link'],
  post: ['post_url', 'url', 'link', 'permalink', 'post', 'post_id', 'id'],
  query: ['query', 'search', 'keyword', 'keywords', 'term', 'q'],
  hashtag: ['hashtag', 'hashtags', 'tag'],
};
const EACH: Record<CollectDo, 'account' | 'post' | 'query' | 'hashtag'> = {
  feed: 'account',
  profile: 'account',
  comments: 'post',
  post: 'post',
  search: 'query',
  hashtag: 'hashtag',
};

/** What turning one value into calls needs: the catalogue, the design, its networks. */
export class Resolver {
  private targets = new Map<string, Target | { reason: string }>();
  /** hosts already read (lists repeat them) */
  private hosts = new Map<string, string | null>();
  /** what the endpoint's rules say of a call shape (its parameters but the input's own plain-text ones) */
  private checked = new Map<string, string | null>();
  /** networks that cannot take some inputs, and why (said once each, in the plan's warnings) */
  readonly leftOut = new Map<string, { reason: string; n: number }>();

  constructor(
    readonly cat: CatalogueApi,
    readonly design: CollectDesignParsed,
    readonly what: CollectDo,
    readonly platforms: readonly string[],
  ) {}

  target(platform: string): Target | { reason: string } {
    let t = this.targets.get(platform);
    if (!t) {
      t = targetFor(this.cat, this.what, platform, this.design.endpoints[platform]);
      this.targets.set(platform, t);
    }
    return t;
  }

  /** The call of one input on one network, checked against the endpoint's rules. */
  candidate(c: {
    line: number | null;
    text: string;
    label: string;
    platform: string;
    t: Target;
    params: Record<string, string>;
    key: string;
    rank?: number | null;
  }): Candidate | { reason: string } {
    const pages = pagesFor(c.t.ep, this.design.pages);
    const params = commentSort(c.t.ep, { ...this.design.params, ...c.params }, pages);
    const refused = this.check(c.t.ep, params, Object.keys(c.params));
    if (refused) return { reason: refused };
    return {
      line: c.line,
      text: c.text,
      label: c.label,
      platform: c.platform,
      ep: c.t.ep,
      endpoint: c.t.endpoint,
      params,
      pages,
      key: `${c.platform}/${c.t.endpoint}|${c.key}`,
      rank: c.rank ?? null,
      feed: this.what === 'feed',
      idParams: Object.keys(c.params),
    };
  }

  /**
   * The endpoint's parameter rules (validateParams) for a call, asked once per call shape: the
   * input's own parameters (a handle, an address, a query) are plain text where the entry says
   * nothing more of them — then only the others decide, and they are the same for every input.
   * Where the entry types, bounds or enumerates one of them, every call is checked whole.
   */
  private check(ep: CatalogueEndpoint, params: Record<string, string>, own: string[]): string | null {
    const defs = ep.params.filter((p) => own.includes(p.name));
    const plain =
      defs.every((p) => (!p.type || p.type === 'string') && !p.enum?.length && p.minimum == null && p.maximum == null) &&
      own.every((k) => params[k] !== '');
    if (!plain) {
      const v = validateParams(ep, params);
      return v.ok ? null : v.message;
    }
    const shape = `${ep.platform}/${ep.path}?${Object.keys(params)
      .sort()
      .map((k) => (own.includes(k) ? k : `${k}=${params[k]}`))
      .join('&')}`;
    let r = this.checked.get(shape);
    if (r === undefined) {
      const v = validateParams(ep, params);
      r = v.ok ? null : v.message;
      this.checked.set(shape, r);
    }
    return r;
  }

  /** A value on the networks it goes to (the design's, when the value does not say): calls, or why none. */
  each(
    value: string,
    fill: (platform: string, t: Target) => { params: Record<string, string>; key: string; label: string } | { reason: string },
    line: number | null,
    text: string,
  ): Candidate[] | { reason: string } {
    const nets = this.design.networks;
    const out: Candidate[] = [];
    const why: string[] = [];
    for (const p of nets) {
      const t = this.target(p);
      if (!('ep' in t)) {
        why.push(`${p}: ${t.reason}`);
        continue;
      }
      const f = fill(p, t);
      const c = 'reason' in f ? f : this.candidate({ line, text, platform: p, t, ...f });
      if ('reason' in c) why.push(`${p}: ${c.reason}`);
      else out.push(c);
    }
    if (out.length === 0) return { reason: why.length === 1 ? why[0].replace(/^[^:]+: /, '') : why.join('; ') };
    for (const w of why) {
      const [p, ...rest] = w.split(': ');
      const k = `${p}|${rest.join(': ')}`;
      const e = this.leftOut.get(k) ?? { reason: rest.join(': '), n: 0 };
      e.n++;
      this.leftOut.set(k, e);
    }
    return out;
  }

  /** The network an address is on (one of the design's, when it names networks), or why not. */
  networkOf(a: AddressRef): string | { reason: string } {
    let p = this.hosts.get(a.host);
    if (p === undefined) {
      p = platformOfHost(a.host, this.platforms);
      this.hosts.set(a.host, p);
    }
    if (!p) return { reason: `${a.host} is not the address of a network in the catalogue` };
    if (this.design.networks.length && !this.design.networks.includes(p))
      return {
        reason: `an address on ${a.host}, another network's (${p}), not one of the chosen networks (${this.design.networks.join(', ')})`,
      };
    return p;
  }
}

function accountInput(r: Resolver, value: string, line: number | null, text: string): Candidate[] | { reason: string } {
  const v = unquote(value);
  const a = readAddress(v);
  if (a) {
    const p = r.networkOf(a);
    if (typeof p !== 'string') return p;
    if (a.post) return { reason: `a post's address, not an account's: collect its comments (comments) or the post itself (post)` };
    const t = r.target(p);
    if (!('ep' in t)) return t;
    const acc = accountOfAddress(a, namesOf(t.ep));
    if ('reason' in acc) return acc;
    const c = r.candidate({
      line,
      text,
      platform: p,
      t,
      params: { [acc.param]: acc.account },
      key: acc.key,
      label: acc.param.includes('url') ? acc.account : `@${acc.account}`,
    });
    return 'reason' in c ? c : [c];
  }
  if (/^https?:\/\//i.test(v)) return { reason: 'not a web address' };
  if (v.startsWith('#')) return { reason: 'a hashtag, not an account: collect it with a hashtag search (hashtag)' };
  if (r.design.networks.length === 0)
    return { reason: 'a handle alone does not say which network: choose the networks, or give profile addresses' };
  return r.each(
    v,
    (_p, t) => {
      const acc = accountOf(v, namesOf(t.ep));
      return 'reason' in acc ? acc : { params: { [acc.param]: acc.account }, key: acc.key, label: `@${acc.account}` };
    },
    line,
    text,
  );
}

function postInput(r: Resolver, value: string, line: number | null, text: string): Candidate[] | { reason: string } {
  const v = unquote(value);
  const a = readAddress(v);
  if (a) {
    const p = r.networkOf(a);
    if (typeof p !== 'string') return p;
    if (!a.post)
      return {
        reason: a.account
          ? `an account's address, not a post's: collect its posts (feed) or its profile (profile)`
          : "not a post's address",
      };
    const t = r.target(p);
    if (!('ep' in t)) return t;
    const urlParam = paramOf(t.ep, POST_URL_PARAMS);
    const idParam = paramOf(t.ep, POST_ID_PARAMS);
    const params = urlParam ? { [urlParam]: a.href } : idParam ? { [idParam]: a.post } : null;
    if (!params) return { reason: `${p}/${t.endpoint} takes neither a post's address nor its id` };
    const c = r.candidate({ line, text, platform: p, t, params, key: `post:${a.post}`, label: a.href });
    return 'reason' in c ? c : [c];
  }
  if (/^https?:\/\//i.test(v)) return { reason: 'not a web address' };
  if (/\s/.test(v) || v.startsWith('#') || v.startsWith('@')) return { reason: "not a post's address nor a post id" };
  if (r.design.networks.length !== 1)
    return { reason: "a post id alone does not say which network: choose one network, or give the post's address" };
  return r.each(
    v,
    (p, t) => {
      const idParam = paramOf(t.ep, POST_ID_PARAMS);
      return idParam
        ? { params: { [idParam]: v }, key: `post:${v}`, label: `${p} post ${v}` }
        : { reason: `${p}/${t.endpoint} takes a post's address, not an id` };
    },
    line,
    text,
  );
}

function queryInput(r: Resolver, value: string, line: number | null, text: string): Candidate[] | { reason: string } {
  const v = value.trim().replace(/\s+/g, ' ');
  if (/^https?:\/\//i.test(v) || readAddress(v))
    return { reason: 'an address, not a search: collect it with feed, profile, comments or post' };
  if (v.length > 500) return { reason: `a search of ${v.length} characters; the limit is 500` };
  return r.each(
    v,
    (_p, t) => {
      const q = paramOf(t.ep, QUERY_PARAMS);
      return q ? { params: { [q]: v }, key: `q:${v.toLowerCase()}`, label: v } : { reason: `${t.endpoint} takes no query` };
    },
    line,
    text,
  );
}

const TAG = /^[\p{L}\p{N}_]{1,100}$/u;

function hashtagInput(r: Resolver, value: string, line: number | null, text: string): Candidate[] | { reason: string } {
  const tag = value.trim().replace(/^#/, '');
  if (!TAG.test(tag)) return { reason: 'not a hashtag (letters, digits and underscore, one word)' };
  return r.each(
    tag,
    (_p, t) => {
      if (t.viaSearch) {
        const q = paramOf(t.ep, QUERY_PARAMS) as string;
        return { params: { [q]: `#${tag}` }, key: `#${tag.toLowerCase()}`, label: `#${tag}` };
      }
      const h = paramOf(t.ep, HASHTAG_PARAMS);
      return h ? { params: { [h]: tag }, key: `#${tag.toLowerCase()}`, label: `#${tag}` } : { reason: `${t.endpoint} takes no hashtag` };
    },
    line,
    text,
  );
}

export const INPUT_OF: Record<
  CollectDo,
  (r: Resolver, value: string, line: number | null, text: string) => Candidate[] | { reason: string }
> = {
  feed: accountInput,
  profile: accountInput,
  comments: postInput,
  post: postInput,
  search: queryInput,
  hashtag: hashtagInput,
};

/**
 * Adds a line's calls to the plan: each is new, a duplicate of an earlier input (or of one the saved
 * plan already has: `held`), or the line is a problem. Returns nothing: it fills `out`.
 */
export function addLine(
  out: Resolved,
  seen: Map<string, number | null>,
  held: ReadonlyMap<string, number | null>,
  line: number | null,
  text: string,
  got: Candidate[] | { reason: string },
): void {
  if ('reason' in got) {
    out.problems.push({ line, text, reason: got.reason });
    return;
  }
  let dup: CollectDuplicate | null = null;
  let added = 0;
  for (const c of got) {
    if (held.has(c.key)) dup ??= { line, text, label: c.label, sameAs: null };
    else if (seen.has(c.key)) dup ??= { line, text, label: c.label, sameAs: seen.get(c.key) ?? null };
    else {
      seen.set(c.key, line);
      out.candidates.push(c);
      added++;
    }
  }
  // a line whose every call repeats an earlier one is a duplicate (counted once)
  if (added === 0 && dup) out.duplicates.push(dup);
}

/** A pasted list or a file's text → inputs, duplicates and problems. */
export function resolveText(
  r: Resolver,
  text: string,
  column: string | undefined,
  held: ReadonlyMap<string, number | null>,
  maxLines: number,
): Resolved {
  const each = EACH[r.what];
  const read = readLines(text, {
    columns: COLUMNS[each],
    column,
    what: COLUMNS[each].slice(0, 3).join(', '),
    perLine: `one ${each} per line`,
    plainWithoutColumn: each === 'query',
    singleColumnHeader: true,
    maxLines,
    subject: 'A plan',
  });
  // lines read: a CSV's records (its header is not an input), else every line
  const out: Resolved = {
    candidates: [],
    problems: [...read.problems],
    duplicates: [],
    read: read.column ? read.lines - 1 : read.lines,
    column: read.column,
    belowTopK: 0,
    warnings: [],
  };
  const seen = new Map<string, number | null>();
  const input = INPUT_OF[r.what];
  for (const raw of read.raw) addLine(out, seen, held, raw.line, raw.text, input(r, raw.value, raw.line, raw.text));
  out.problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return out;
}

/** Calls as another caller hands them (endpoint + params + pages), checked against the catalogue. */
export function resolveCalls(
  cat: CatalogueApi,
  design: CollectDesignParsed,
  calls: Array<{ platform: string; endpoint: string; params: Record<string, string>; pages?: number; label?: string; feed?: boolean }>,
  held: ReadonlyMap<string, number | null>,
): Resolved {
  const out: Resolved = { candidates: [], problems: [], duplicates: [], read: calls.length, column: null, belowTopK: 0, warnings: [] };
  const seen = new Map<string, number | null>();
  calls.forEach((call, i) => {
    const line = i + 1;
    const text = `${call.platform}/${call.endpoint}${Object.keys(call.params).length ? `?${new URLSearchParams(call.params).toString()}` : ''}`;
    const ep = cat.find(call.platform, call.endpoint);
    if (!ep) return out.problems.push({ line, text, reason: `${call.platform}/${call.endpoint} is not in the catalogue` });
    const params = { ...design.params, ...call.params };
    const v = validateParams(ep, params);
    if (!v.ok) return out.problems.push({ line, text, reason: v.message });
    const endpoint = pathOf(ep);
    const first = Object.values(call.params)[0];
    const c: Candidate = {
      line,
      text,
      label: call.label ?? `${call.platform}/${endpoint}${first ? ` ${first}` : ''}`,
      platform: call.platform,
      ep,
      endpoint,
      params,
      pages: pagesFor(ep, call.pages ?? design.pages),
      key: `${call.platform}/${endpoint}|${canonicalParams(params)}`,
      rank: null,
      feed: call.feed ?? ep.params.some((p) => p.name === 'stop_at_id'),
    };
    addLine(out, seen, held, line, text, [c]);
  });
  return out;
}
