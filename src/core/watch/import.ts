/**
 * Bulk watches (issue 16, docs/watchlists.md "Importing accounts"): a pasted list or a CSV of
 * handles / profile addresses → one watch per account on one list endpoint, in a new or an
 * existing watchlist.
 *
 * `planImport` reads the text and writes nothing: every line is an account to add, a duplicate
 * (of an earlier line, or of a watch the list already has) or a problem said in words (not an
 * account, refused by the endpoint's parameters) — never silently dropped — and one estimate
 * covers the first run of every account it adds. `applyImport` plans again and creates the
 * watches (creating watches spends nothing; runs do, under the list's budgets).
 *
 * Reading the text: a first line with a column named handle, username, user, screen_name,
 * account, url, profile_url, profile or link (any case, `,` `;` or tab separated, quoted cells
 * as in RFC 4180) makes it a CSV read from that column; otherwise one account per line. Blank
 * lines and lines starting with # are skipped. `@nasa`, `nasa` and a profile address
 * (`https://…/nasa`) name the same account where the endpoint takes a handle; where it takes an
 * address only, handles are refused with that reason.
 */
import { PLATFORMS } from '../../shared/api-types';
import type { ApiCore } from '../api/types';
import type { CatalogueEndpoint } from '../../shared/api-types';
import { ApiError } from '../api/errors';
import { spendStop } from '../../shared/spend-policy';
import { maxPagesOf, priceOf } from '../api/catalogue';
import type { WatchImportAccount, WatchImportDuplicate, WatchImportInput, WatchImportPlan, WatchImportProblem, WatchImportResult } from '../../shared/contract-watch-import';
import type { WatchlistDetail, WatchService } from './service';

export interface ImportDeps {
  service: WatchService;
  api: ApiCore;
  /** the user's "ask above N credits" threshold */
  askAboveCredits?: () => number | null;
}

const MAX_LINES = 20_000;
/** CSV column names that hold the account, most specific first */
const COLUMNS = ['handle', 'username', 'user', 'screen_name', 'account', 'url', 'profile_url', 'profile', 'link'];
/** endpoint parameters that take a handle, in order of preference */
const HANDLE_PARAMS = ['handle', 'username', 'user', 'screen_name'];
const URL_PARAMS = ['url', 'profile_url'];
/** first path segments of addresses that are not an account's */
const NOT_ACCOUNT = new Set(['p', 'post', 'posts', 'status', 'statuses', 'watch', 'video', 'videos', 'reel', 'reels', 'tv', 'hashtag', 'tag', 'tags', 'explore', 'search', 'share', 'stories', 'events', 'groups', 'i']);
const HANDLE = /^[\p{L}\p{N}._-]{1,100}$/u;

function invalid(message: string): ApiError {
  return new ApiError({ kind: 'validation', message });
}

/** Cells of one CSV line (RFC 4180 quotes; a quote left open runs to the end of the line). */
function cells(line: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') q = false;
      else cur += c;
    } else if (c === '"' && cur.trim() === '') {
      q = true;
      cur = '';
    } else if (c === sep) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

interface RawAccount {
  line: number;
  text: string;
  value: string;
}

/**
 * The CSV's records after its header (physical line `header`): a quoted cell may hold line breaks
 * (RFC 4180), so a line whose quotes are left open is joined with the next ones; blank and `#`
 * lines between records are skipped. Each record keeps the number of its first line.
 */
function csvRecords(all: string[], header: number): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let open: { line: number; text: string } | null = null;
  const quotes = (t: string): number => t.split('"').length - 1;
  for (let i = header; i < all.length; i++) {
    const t = all[i];
    if (open) {
      open.text += '\n' + t;
      if (quotes(open.text) % 2 === 0) open = null;
      continue;
    }
    if (t.trim() === '' || t.trim().startsWith('#')) continue;
    const rec = { line: i + 1, text: t };
    out.push(rec);
    if (quotes(t) % 2 === 1) open = rec;
  }
  return out;
}

/** The lines of the text: accounts to look at, and lines that cannot be one. */
export function readAccountLines(text: string): { column: string | null; raw: RawAccount[]; problems: WatchImportProblem[]; lines: number } {
  const all = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const problems: WatchImportProblem[] = [];
  const raw: RawAccount[] = [];
  const rows = all.map((t, i) => ({ line: i + 1, text: t })).filter((r) => r.text.trim() !== '' && !r.text.trim().startsWith('#'));
  if (rows.length > MAX_LINES) throw invalid(`An import takes up to ${MAX_LINES.toLocaleString('en-US')} lines; this one has ${rows.length.toLocaleString('en-US')}. Split it.`);
  if (rows.length === 0) return { column: null, raw, problems, lines: 0 };
  // a header with a known column makes it a CSV
  const head = rows[0].text;
  const sep = [',', ';', '\t'].map((s) => ({ s, n: head.split(s).length - 1 })).sort((a, b) => b.n - a.n)[0];
  if (sep.n > 0) {
    const names = cells(head, sep.s).map((c) => c.toLowerCase().replace(/^@/, ''));
    const col = COLUMNS.map((c) => names.indexOf(c)).find((i) => i >= 0);
    if (col === undefined) {
      problems.push({ line: rows[0].line, text: head, reason: `a CSV needs a column named handle, username or url (its columns: ${names.join(', ') || 'none'}); or give one account per line` });
      for (const r of rows.slice(1)) problems.push({ line: r.line, text: r.text, reason: 'not read: the CSV has no handle, username or url column' });
      return { column: null, raw, problems, lines: rows.length };
    }
    const name = names[col];
    const records = csvRecords(all, rows[0].line);
    for (const r of records) {
      const cs = cells(r.text, sep.s);
      const v = (cs[col] ?? '').trim();
      if (v === '') problems.push({ line: r.line, text: r.text, reason: `no ${name} in this row` });
      else raw.push({ line: r.line, text: r.text, value: v });
    }
    return { column: name, raw, problems, lines: records.length + 1 };
  }
  for (const r of rows) raw.push({ line: r.line, text: r.text, value: r.text.trim() });
  return { column: null, raw, problems, lines: rows.length };
}

/** An account as the endpoint takes it: which parameter, its value, and a key that finds duplicates. */
function accountOf(value: string, names: ReadonlySet<string>): { param: string; account: string; key: string } | { reason: string } {
  const v = value.replace(/^["']|["']$/g, '').trim();
  const handleParam = HANDLE_PARAMS.find((p) => names.has(p));
  const urlParam = URL_PARAMS.find((p) => names.has(p));
  if (/^https?:\/\//i.test(v)) {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return { reason: 'not a web address' };
    }
    const segs = u.pathname.split('/').filter(Boolean);
    const handle = segs[0] ? decodeURIComponent(segs[0]).replace(/^@/, '') : '';
    const isAccount = segs.length >= 1 && !NOT_ACCOUNT.has(segs[0].toLowerCase()) && HANDLE.test(handle);
    if (urlParam) {
      const norm = `${u.protocol}//${u.host.toLowerCase()}${u.pathname.replace(/\/+$/, '')}`;
      return { param: urlParam, account: v, key: isAccount ? `@${handle.toLowerCase()}` : norm.toLowerCase() };
    }
    if (!handleParam) return { reason: 'this endpoint takes neither a handle nor an address' };
    if (!isAccount) return { reason: `not an account's address (${segs.length ? `a /${segs[0]}/ address` : 'no account in it'}); give the account's handle or profile address` };
    return { param: handleParam, account: handle, key: `@${handle.toLowerCase()}` };
  }
  if (/\s|,|;/.test(v)) return { reason: 'more than one word: give one account per line (or a CSV with a handle, username or url column)' };
  const handle = v.replace(/^@/, '');
  if (!HANDLE.test(handle)) return { reason: 'not a handle (letters, digits, dot, underscore and hyphen only) nor a web address' };
  if (!handleParam) return { reason: `this endpoint takes a profile address (${urlParam ?? 'url'}), not a handle` };
  return { param: handleParam, account: handle, key: `@${handle.toLowerCase()}` };
}

/**
 * The network another catalogue platform's address belongs to, when a web address's host names it
 * (a label equal to the platform's name with `-` or nothing for `_`: `micro-net.example` is
 * micro_net's); null for a handle, or a host that names no other platform.
 */
function otherNetworkOf(value: string, platform: string): { platform: string; host: string } | null {
  const v = value.replace(/^["']|["']$/g, '').trim();
  if (!/^https?:\/\//i.test(v)) return null;
  let host: string;
  try {
    host = new URL(v).hostname.toLowerCase();
  } catch {
    return null;
  }
  const labels = new Set(host.split('.'));
  const names = (p: string): string[] => [p.replace(/_/g, '-'), p.replace(/_/g, '')];
  if (names(platform).some((n) => labels.has(n))) return null;
  const other = PLATFORMS.find((p) => p !== platform && names(p).some((n) => labels.has(n)));
  return other ? { platform: other, host } : null;
}

/** The duplicate key of an existing watch on the same endpoint (its handle or its address). */
function watchKey(params: Record<string, string>, names: ReadonlySet<string>): string | null {
  for (const p of [...HANDLE_PARAMS, ...URL_PARAMS]) {
    const v = params[p];
    if (v === undefined) continue;
    const a = accountOf(v, names);
    return 'key' in a ? a.key : null;
  }
  return null;
}

async function endpointFor(api: ApiCore, platform: string, endpoint: string): Promise<CatalogueEndpoint> {
  await api.catalogue.load();
  const ep = api.catalogue.find(platform, endpoint);
  if (!ep) throw invalid(`${platform}/${endpoint} is not in the catalogue (see Explorer, or loupe endpoints).`);
  if (!ep.paginates) throw invalid(`${platform}/${endpoint} returns a single answer, not a list; a watch needs a list endpoint such as profile/posts.`);
  return ep;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Reads the text, checks every account against the endpoint, and estimates the first run. Writes nothing. */
export async function planImport(deps: ImportDeps, input: WatchImportInput): Promise<WatchImportPlan> {
  const { api, service } = deps;
  const ep = await endpointFor(api, input.platform, input.endpoint);
  const names = new Set(ep.params.map((p) => p.name));
  const fixed = input.params ?? {};
  // the list: an existing one (its watches count as already held) or a new name
  let list: WatchlistDetail | null = null;
  if ('id' in input.list) list = await service.get(input.list.id);
  else {
    const name = input.list.name.trim();
    list = (await service.list()).find((l) => l.name === name) ?? null;
  }
  const listName = list ? list.name : 'name' in input.list ? input.list.name.trim() : '';
  const held = new Map<string, true>();
  for (const w of list?.watches ?? []) {
    if (w.platform !== input.platform || api.catalogue.find(w.platform, w.endpoint)?.path !== ep.path) continue;
    const k = watchKey(w.params, names);
    if (k) held.set(k, true);
  }

  const read = readAccountLines(input.text);
  const problems: WatchImportProblem[] = [...read.problems];
  const duplicates: WatchImportDuplicate[] = [];
  const accounts: WatchImportAccount[] = [];
  const first = new Map<string, number>();
  for (const r of read.raw) {
    const a = accountOf(r.value, names);
    if ('reason' in a) {
      problems.push({ line: r.line, text: r.text, reason: a.reason });
      continue;
    }
    const other = otherNetworkOf(r.value, input.platform);
    if (other) {
      problems.push({ line: r.line, text: r.text, reason: `an address on ${other.host}, another network's (${other.platform}), not ${input.platform}'s: import it into a watch of ${other.platform}` });
      continue;
    }
    if (held.has(a.key)) {
      duplicates.push({ line: r.line, text: r.text, account: a.account, sameAs: null });
      continue;
    }
    const earlier = first.get(a.key);
    if (earlier !== undefined) {
      duplicates.push({ line: r.line, text: r.text, account: a.account, sameAs: earlier });
      continue;
    }
    const params = { ...fixed, [a.param]: a.account };
    const v = await api.validate({ platform: input.platform, endpoint: input.endpoint, params });
    if (!v.ok) {
      problems.push({ line: r.line, text: r.text, reason: v.message });
      continue;
    }
    first.set(a.key, r.line);
    accounts.push({ line: r.line, account: a.account, param: a.param, params, label: a.param === 'url' || a.param === 'profile_url' ? a.account : `@${a.account}` });
  }
  problems.sort((x, y) => x.line - y.line);

  // one estimate: the first run of every account added (pages: the list's first-run depth)
  const pages = list?.firstRunPages ?? input.firstRunPages ?? 1;
  const price = priceOf(ep);
  const mp = maxPagesOf(fixed);
  const n = accounts.length;
  const creditsMin = n * pages * price.min * mp;
  const creditsMax = n * pages * price.max * mp;
  const requests = n * pages;
  const balance = api.balance();
  // the spend policy (src/shared/spend-policy.ts): the list's per-run budget, the balance, the ask threshold
  const stop = spendStop(creditsMax, { budget: list?.budgetPerRun, balance, askAbove: deps.askAboveCredits?.() ?? null });
  let reason: string | null = null;
  if (stop?.why === 'budget')
    reason = `The first run could cost up to ${fmt(creditsMax)} credits, above the list's per-run budget of ${fmt(stop.limit)}: the budget caps each run, and the watches left unfinished resume on the next runs.`;
  else if (stop?.why === 'balance') reason = `The first run could cost up to ${fmt(creditsMax)} credits, more than the balance of ${fmt(stop.limit)}.`;
  else if (stop?.why === 'threshold') reason = `The first run could cost up to ${fmt(creditsMax)} credits, above your confirmation threshold of ${fmt(stop.limit)}.`;
  return {
    platform: input.platform,
    endpoint: input.endpoint,
    column: read.column,
    lines: read.lines,
    list: { id: list?.id ?? null, name: listName, watches: list?.watches.length ?? 0 },
    accounts,
    duplicates,
    problems,
    estimate: {
      creditsMin,
      creditsMax,
      requests,
      etaMs: api.pacer.eta(requests, 'background'),
      balance,
      needsConfirmation: reason !== null,
      reason,
      pagesPerAccount: pages,
      basis: `${fmt(n)} account(s) × ${pages} page(s) on the first run × ${price.min === price.max ? fmt(price.min) : `${fmt(price.min)}–${fmt(price.max)}`} credits a page${mp > 1 ? ` × ${mp} (max_pages)` : ''}`,
    },
  };
}

/** Plans again and creates the watches: a new list with them, or them added to the list. */
export async function applyImport(deps: ImportDeps, input: WatchImportInput): Promise<WatchImportResult<WatchlistDetail>> {
  const plan = await planImport(deps, input);
  if (plan.accounts.length === 0) {
    const why = plan.duplicates.length && !plan.problems.length ? 'every account is already in the list or repeated' : `${plan.problems.length} line(s) could not be read as accounts`;
    throw invalid(`Nothing to import: ${why}.`);
  }
  const watches = plan.accounts.map((a) => ({ platform: plan.platform, endpoint: plan.endpoint, params: a.params, label: a.label }));
  let watchlist: WatchlistDetail;
  if (plan.list.id) {
    const current = await deps.service.get(plan.list.id);
    watchlist = await deps.service.update(plan.list.id, {
      watches: [...current.watches.map((w) => ({ platform: w.platform, endpoint: w.endpoint, params: w.params, label: w.label })), ...watches],
    });
  } else {
    if (!plan.list.name) throw invalid('Name the new watchlist.');
    watchlist = await deps.service.create({ name: plan.list.name, watches, ...(input.firstRunPages ? { firstRunPages: input.firstRunPages } : {}) });
  }
  return { plan, watchlist, added: plan.accounts.length };
}
