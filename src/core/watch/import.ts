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
import { accountOf, HANDLE_PARAMS, otherNetworkOf, readLines, TooManyLines, URL_PARAMS, type ReadLines } from '../resolve';
import type { ApiCore } from '../api';
import type { CatalogueEndpoint } from '../../shared/api-types';
import { ApiError } from '../api';
import { spendStop } from '../../shared/spend-policy';
import { maxPagesOf, priceOf } from '../api';
import type {
  WatchImportAccount,
  WatchImportDuplicate,
  WatchImportInput,
  WatchImportPlan,
  WatchImportProblem,
  WatchImportResult,
} from '../../shared/contract-watch-import';
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

function invalid(message: string): ApiError {
  return new ApiError({ kind: 'validation', message });
}

/** The lines of the text: accounts to look at, and lines that cannot be one (src/core/resolve). */
export function readAccountLines(text: string): ReadLines {
  try {
    return readLines(text, { columns: COLUMNS, what: 'handle, username or url', perLine: 'one account per line', maxLines: MAX_LINES });
  } catch (e) {
    if (e instanceof TooManyLines) throw invalid(e.message);
    throw e;
  }
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
  if (!ep.paginates)
    throw invalid(`${platform}/${endpoint} returns a single answer, not a list; a watch needs a list endpoint such as profile/posts.`);
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
    const other = otherNetworkOf(r.value, input.platform, PLATFORMS);
    if (other) {
      problems.push({
        line: r.line,
        text: r.text,
        reason: `an address on ${other.host}, another network's (${other.platform}), not ${input.platform}'s: import it into a watch of ${other.platform}`,
      });
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
    accounts.push({
      line: r.line,
      account: a.account,
      param: a.param,
      params,
      label: a.param === 'url' || a.param === 'profile_url' ? a.account : `@${a.account}`,
    });
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
  else if (stop?.why === 'balance')
    reason = `The first run could cost up to ${fmt(creditsMax)} credits, more than the balance of ${fmt(stop.limit)}.`;
  else if (stop?.why === 'threshold')
    reason = `The first run could cost up to ${fmt(creditsMax)} credits, above your confirmation threshold of ${fmt(stop.limit)}.`;
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
    const why =
      plan.duplicates.length && !plan.problems.length
        ? 'every account is already in the list or repeated'
        : `${plan.problems.length} line(s) could not be read as accounts`;
    throw invalid(`Nothing to import: ${why}.`);
  }
  const watches = plan.accounts.map((a) => ({ platform: plan.platform, endpoint: plan.endpoint, params: a.params, label: a.label }));
  let watchlist: WatchlistDetail;
  if (plan.list.id) {
    // appended: the list's own watches (their markers and held items) and fields are not touched
    watchlist = await deps.service.addWatches(plan.list.id, watches);
  } else {
    if (!plan.list.name) throw invalid('Name the new watchlist.');
    watchlist = await deps.service.create({
      name: plan.list.name,
      watches,
      ...(input.firstRunPages ? { firstRunPages: input.firstRunPages } : {}),
    });
  }
  return { plan, watchlist, added: plan.accounts.length };
}
