/**
 * The simulation's invariants (issue 24), checked after every step against the reference model
 * and the service's own records (`/__admin/charges`). Each returns the violations it found, in
 * words; `checkAll` throws them together. Not shipped.
 */
import type { ChargeRecord } from '../../sandbox';
import type { BalanceInfo, LedgerEntry, Settings, WatchlistInfo } from '../../shared/contract';
import type { ArchivedItem } from '../../shared/query';
import { MARK_MAX_AGE_MS, QUIET_MS } from '../api/call/attribution';
import { testDb } from '../archive/testing';
import { directGet, type SimEnv } from './test-sim-env';
import { canon, count, itemKey, listOf, variantsAt, type ListModel, type SimModel } from './test-sim-model';

type Violations = string[];

/** an empty note and no note are the same to the analyst */
const blank = (s: string | null | undefined): string | null => (s === undefined || s === null || s === '' ? null : s);

/** 1. Nothing the analyst configured changed unless an operation named it. */
export async function checkConfig(env: SimEnv, m: SimModel): Promise<Violations> {
  const out: Violations = [];
  const lists = await env.call<WatchlistInfo[]>('watchlists.list');
  const seen = new Set<string>();
  for (const info of lists) {
    seen.add(info.id);
    const want = m.lists.get(info.id);
    if (!want) {
      out.push(`a watchlist nobody created: ${info.name} (${info.id})`);
      continue;
    }
    const got = listOf(info);
    for (const f of ['name', 'schedule', 'budgetPerRun', 'budgetPerMonth', 'alert', 'paused', 'firstRunPages', 'watches'] as const) {
      if (f === 'watches' ? watchSet(got.watches) !== watchSet(want.watches) : canon(got[f]) !== canon(want[f]))
        out.push(`watchlist "${want.name}": ${f} is ${canon(got[f])}, the analyst set ${canon(want[f])}`);
    }
  }
  for (const [id, l] of m.lists) if (!seen.has(id)) out.push(`watchlist "${l.name}" (${id}) disappeared`);
  if (m.settings) {
    const s = await env.call<Settings>('settings.get');
    for (const [k, v] of Object.entries(m.settings))
      if (canon((s as Record<string, unknown>)[k]) !== canon(v))
        out.push(`setting ${k} is ${canon((s as Record<string, unknown>)[k])}, the analyst set ${canon(v)}`);
  }
  for (const [k, a] of m.annotations) {
    const [platform, kind, id] = k.split('\u0000');
    const it = await env.call<ArchivedItem | null>('library.item', { platform, kind, id });
    if (!it) {
      out.push(`annotated item ${platform}/${kind}/${id} is gone from the archive`);
      continue;
    }
    if (canon([...a.tags].sort()) !== canon([...it.tags].sort()))
      out.push(`item ${id}: tags ${canon(it.tags)}, the analyst set ${canon([...a.tags])}`);
    if (blank(it.note) !== blank(a.note))
      out.push(`item ${id}: note ${JSON.stringify(it.note)}, the analyst set ${JSON.stringify(a.note)}`);
    for (const [ff, v] of a.overrides) {
      const [family, field] = ff.split('.');
      const got = (it.overrides as Record<string, Record<string, unknown>> | null)?.[family]?.[field];
      if (canon(got) !== canon(v)) out.push(`item ${id}: override ${ff} is ${canon(got)}, the analyst set ${canon(v)}`);
    }
  }
  const sets = await env.call<Array<{ id: string; name: string; note: string | null }>>('library.resultSets');
  for (const [id, s] of m.sets) {
    const got = sets.find((x) => x.id === id);
    if (!got) out.push(`saved set "${s.name}" disappeared`);
    else if (got.name !== s.name || blank(got.note) !== blank(s.note))
      out.push(`saved set "${s.name}" changed to "${got.name}" / ${JSON.stringify(got.note)}`);
  }
  return out;
}

/** a list's watches as a multiset (their order is not what the analyst configured) */
export const watchSet = (ws: ListModel['watches']): string => canon(ws.map((w) => canon(w)).sort());

const undelivered = (c: ChargeRecord) => c.status !== 200 || /drop|truncate/.test(c.fault ?? '');

/**
 * 2. Every item the service delivered (and Loupe recorded receiving) is in the archive exactly
 * once; every archived post or comment was delivered under its own id.
 */
export function checkItems(env: SimEnv, m: SimModel, charges: ChargeRecord[], ledger: LedgerEntry[]): Violations {
  const out: Violations = [];
  const db = testDb(env.app.archive);
  const received = new Set(ledger.map((l) => l.requestId).filter((x): x is string => !!x));
  const countOf = db.prepare('SELECT count(*) AS n FROM items WHERE platform = ? AND id = ?');
  for (let i = m.itemsCheckedUpTo; i < charges.length; i++) {
    const c = charges[i];
    if (undelivered(c) || !c.item_ids?.length || !received.has(c.request_id)) continue;
    for (const id of c.item_ids) {
      const n = (countOf.get(c.platform, id) as { n: number }).n;
      if (n !== 1) out.push(`${c.platform} item ${id} (request ${c.request_id}, ${c.endpoint}) is in the archive ${n} times`);
    }
  }
  m.itemsCheckedUpTo = charges.length;
  const delivered = new Set<string>();
  for (const c of charges) for (const id of c.item_ids ?? []) delivered.add(`${c.platform}\u0000${id}`);
  const rows = db.prepare("SELECT platform, kind, id FROM items WHERE kind IN ('post', 'comment')").all() as Array<{
    platform: string;
    kind: string;
    id: string;
  }>;
  for (const r of rows)
    if (!delivered.has(`${r.platform}\u0000${r.id}`))
      out.push(`archived ${r.platform} ${r.kind} ${r.id} was never delivered under that id (merged from another row?)`);
  return out;
}

/**
 * 3. The ledger equals the service's charges, charge by charge: every charge is a ledger row with
 * its request id and amount, or — for an answer that never arrived — an inferred row under its
 * Idempotency-Key (exact when read from the balance, at most the charge when inferred from the
 * price), or a journal entry still pending (a dead process's call, settled when it is resumed).
 */
const isInferred = (l: LedgerEntry): boolean => l.chargeReason?.startsWith('inferred:') === true;

/**
 * Another spender spent between a lost attempt's two balance readings: it started at most a minute
 * before the attempt (the attempt's own duration, up to the reading after it) and ended no earlier
 * than the reading before it — taken just before the key was sent, or the last one when it was under
 * MARK_MAX_AGE_MS old (finding 15: the spending fell in those seconds, before the attempt started).
 */
function duringOtherSpending(m: SimModel, at: number): boolean {
  return m.otherSpending.some(([a, b]) => at >= a - 60_000 && at - MARK_MAX_AGE_MS <= b);
}

/**
 * When Loupe could first have seen a movement of the balance that ended at `b`: at its first answer
 * after it (an answer's `credits_remaining`, or the reading taken before its key was sent), at the
 * latest the lost attempt at `at` itself, whose reading before may be the first one (finding 18: an
 * analyst idle for ten minutes after another spender stopped).
 */
function seenAt(ledger: LedgerEntry[], b: number, at: number): number {
  let first = at;
  for (const l of ledger) if (!isInferred(l) && l.startedAt > b && l.startedAt < first) first = l.startedAt;
  return first;
}

export function checkLedger(
  m: SimModel,
  charges: ChargeRecord[],
  ledger: LedgerEntry[],
  pendingKeys: Set<string>,
  pendingCalls = new Set<string>(),
): Violations {
  const out: Violations = [];
  const byRequest = new Map<string, LedgerEntry>();
  for (const l of ledger) if (l.requestId) byRequest.set(l.requestId, l);
  const inferred = new Map<string, LedgerEntry[]>();
  for (const l of ledger)
    if (l.chargeReason?.startsWith('inferred:') && l.idempotencyKey)
      inferred.set(l.idempotencyKey, [...(inferred.get(l.idempotencyKey) ?? []), l]);
  const usedInferred = new Set<LedgerEntry>();
  for (const c of charges) {
    if (c.credits_used <= 0) continue;
    const row = byRequest.get(c.request_id);
    // an attempt whose answer broke on the way (its request id came in a header) is a lost answer:
    // its charge is inferred under its Idempotency-Key
    if (row && !(row.creditsUsed === 0 && row.errorType?.startsWith('NETWORK_'))) {
      if (row.creditsUsed !== c.credits_used)
        out.push(`request ${c.request_id}: the service charged ${c.credits_used}, the ledger says ${row.creditsUsed}`);
      continue;
    }
    // under its key; or — several answers of one call lost while the balance could not tell which was
    // charged, and a later answer proved one was — under another lost key of the same call: the
    // inferred row stands for the call's lost attempts (docs/request-core.md, finding 12)
    const inf =
      (c.idempotency_key ? inferred.get(c.idempotency_key) : undefined)?.find((l) => !usedInferred.has(l)) ??
      (row?.errorType?.startsWith('NETWORK_')
        ? ledger.find((l) => isInferred(l) && l.callId === row.callId && !usedInferred.has(l))
        : undefined);
    if (inf) {
      usedInferred.add(inf);
      if (inf.chargeReason === 'inferred:balance' && inf.creditsUsed !== c.credits_used && duringOtherSpending(m, inf.startedAt))
        // the known limit (docs/request-core.md): another spender spent a legal amount between the
        // two readings of a lost answer the service did charge, and the balance counted it too
        count(m.stats.unknowable, 'balance took another spender’s legal amount for a lost answer');
      else if (inf.chargeReason === 'inferred:balance' && inf.creditsUsed !== c.credits_used)
        out.push(
          `lost answer ${c.request_id}: the service charged ${c.credits_used}, the ledger inferred ${inf.creditsUsed} from the balance`,
        );
      else if (inf.creditsUsed > c.credits_used)
        out.push(`lost answer ${c.request_id}: the service charged ${c.credits_used}, the ledger inferred more (${inf.creditsUsed})`);
      else if (inf.creditsUsed < c.credits_used) count(m.stats.unknowable, 'lost charge inferred at its least');
      continue;
    }
    if (/drop|truncate/.test(c.fault ?? '') && m.otherSpending.some(([a, b]) => c.at >= a && c.at <= b)) {
      // a lost answer while another spender moved the balance: nothing Loupe can read tells whether it was charged
      count(m.stats.unknowable, 'lost answer charged while another spender was active');
      continue;
    }
    if (/drop|truncate/.test(c.fault ?? '') && m.otherSpending.some(([, b]) => c.at > b && c.at <= seenAt(ledger, b, c.at) + QUIET_MS)) {
      // lost within QUIET_MS after Loupe saw another spender's movement of the balance: it does not
      // read the balance as this call's charge then (docs/request-core.md "Known limits": the first
      // charge is not in the ledger; credits --reconcile shows it) — finding 18
      count(m.stats.unknowable, 'lost answer charged soon after another spender: the balance not trusted');
      continue;
    }
    // a killed process's call still pending: its entry may name a later key than the broken
    // attempt's (the process moved on to a fresh key and died sending it), so match by the call
    const deadCall = row && pendingCalls.has(row.callId) && m.deadPending.has(row.callId);
    if (deadCall || (c.idempotency_key && pendingKeys.has(c.idempotency_key) && m.deadPending.has(c.idempotency_key))) {
      count(m.stats.unknowable, 'charge pending in the journal of a killed process');
      continue;
    }
    out.push(
      `the service charged ${c.credits_used} for ${c.endpoint} (request ${c.request_id}${c.fault ? `, ${c.fault}` : ''}) and the ledger has no row for it`,
    );
  }
  const charged = new Set(charges.map((c) => c.request_id));
  for (const l of ledger) {
    if (l.creditsUsed <= 0) continue;
    if (l.chargeReason?.startsWith('inferred:')) {
      if (!usedInferred.has(l) && l.chargeReason === 'inferred:balance' && duringOtherSpending(m, l.startedAt)) {
        // the known limit (docs/request-core.md): another spender spent exactly a legal amount
        // between the two readings of a lost answer, and the balance took it for this call's charge
        count(m.stats.unknowable, 'balance took another spender’s legal amount for a lost answer');
        continue;
      }
      if (!usedInferred.has(l))
        out.push(
          `the ledger infers ${l.creditsUsed} credits for ${l.platform}/${l.endpoint} (key ${l.idempotencyKey}) that the service never charged`,
        );
    } else if (!l.requestId || !charged.has(l.requestId))
      out.push(`the ledger records ${l.creditsUsed} credits (request ${l.requestId}) the service has no charge for`);
  }
  return out;
}

/**
 * 4. No page paid twice inside its cache window unless the analyst forced a fresh fetch, and no
 * retry paid the reserved ceiling where a fresh key would have cost the price — except the known
 * limit of docs/request-core.md: outside any window, another spender spent a legal amount for the
 * call between the two readings of its lost original, the balance took it for the original's charge
 * and the key was kept (finding 17: counted while another spender was spending).
 */
export function checkPaidOnce(env: Pick<SimEnv, 'catalogue'>, m: SimModel, charges: ChargeRecord[]): Violations {
  const out: Violations = [];
  const last = new Map<string, ChargeRecord>();
  for (const c of charges) {
    const original = c.ceiling_retry ? charges.find((o) => o !== c && o.idempotency_key === c.idempotency_key && o.at <= c.at) : undefined;
    if (c.ceiling_retry && original && duringOtherSpending(m, original.at))
      count(m.stats.unknowable, 'balance took another spender’s legal amount for a lost answer: its same-key retry paid the ceiling');
    else if (c.ceiling_retry)
      out.push(
        `request ${c.request_id} on ${c.endpoint} paid the reserved ceiling ${c.credits_used} where a fresh key would have cost ${c.fresh_cost}`,
      );
    if (c.charge_reason !== 'miss') continue;
    const path = c.endpoint.replace(/^\/v1\//, '');
    const k = `${path}?${canon(c.params)}`;
    const prev = last.get(k);
    last.set(k, c);
    if (!prev || c.no_cache) continue;
    const ttl = env.catalogue.get(path)?.cache_ttl_seconds ?? 0;
    if (variantsAt(m, c.at).includes('no-cache-window') || variantsAt(m, prev.at).includes('no-cache-window')) continue;
    if (c.at - prev.at < ttl * 1000)
      out.push(`${path} ${canon(c.params)} was paid twice inside its ${ttl} s window (requests ${prev.request_id} and ${c.request_id})`);
  }
  return out;
}

/** 5. Spending never exceeded what was approved (walk limits, per-run budgets). */
export async function checkApproved(env: SimEnv, m: SimModel): Promise<Violations> {
  const out: Violations = [];
  for (const [walkId, w] of m.walks) {
    if (w.approved === null) continue;
    const info = await env.call<{ creditsSpent: number } | null>('walks.get', { walkId });
    if (info && info.creditsSpent > w.approved) out.push(`walk ${walkId} spent ${info.creditsSpent}, ${w.approved} approved`);
  }
  const db = testDb(env.app.archive);
  for (const r of m.runs) {
    if (r.budgetPerRun === null) continue;
    const row = db.prepare('SELECT credits_spent AS c FROM watch_runs WHERE run_id = ?').get(r.runId) as { c: number } | undefined;
    if (row && row.c > r.budgetPerRun) out.push(`run ${r.runId} spent ${row.c}, the per-run budget was ${r.budgetPerRun}`);
  }
  return out;
}

/**
 * 6. A watch's marker never passes an item that is not in the archive: every non-pinned item of a
 * date-ordered feed between the oldest item the watch holds and its marker is archived. The
 * service's truth is read by the observer account (its own money and cache).
 */
export async function checkMarkers(env: SimEnv, m: SimModel): Promise<Violations> {
  const out: Violations = [];
  const db = testDb(env.app.archive);
  const watches = db
    .prepare(
      `SELECT w.watch_id, w.platform, w.endpoint, w.params, w.marker_id, w.marker_at,
              (SELECT min(i.published_at) FROM watch_items wi JOIN items i ON i.platform = wi.platform AND i.kind = wi.kind AND i.id = wi.item_id WHERE wi.watch_id = w.watch_id) AS oldest
         FROM watches w WHERE w.marker_at IS NOT NULL`,
    )
    .all() as Array<{
    watch_id: string;
    platform: string;
    endpoint: string;
    params: string;
    marker_id: string;
    marker_at: number;
    oldest: number | null;
  }>;
  const has = db.prepare('SELECT 1 FROM items WHERE platform = ? AND id = ?');
  const held = db.prepare(
    'SELECT i.id, i.published_at AS t FROM watch_items wi JOIN items i ON i.platform = wi.platform AND i.kind = wi.kind AND i.id = wi.item_id WHERE wi.watch_id = ? AND i.published_at IS NOT NULL',
  );
  for (const w of watches) {
    if (!DATE_ORDERED.has(`${w.platform}/${w.endpoint}`) || w.oldest === null) continue;
    const params = JSON.parse(w.params) as Record<string, string>;
    delete params.trim; // the observer reads the pin state the watch may not see
    // the service's feed, newest first, down past the oldest item the watch holds
    const feed: Array<{ id: string; t: number; pinned: boolean }> = [];
    let cursor: string | null = null;
    let complete = true;
    for (let page = 0; page < 40; page++) {
      const r = await observe(env, `${w.platform}/${w.endpoint}`, cursor ? { ...params, cursor } : params);
      if (!r) {
        complete = false;
        break;
      }
      const data = r.body.data as { items?: Array<{ post?: { id?: string; published_at?: string; flags?: { pinned?: boolean | null } } }> };
      let older = false;
      for (const it of data.items ?? []) {
        const p = it.post;
        if (!p?.id || !p.published_at) continue;
        const t = Date.parse(p.published_at);
        feed.push({ id: p.id, t, pinned: p.flags?.pinned === true });
        if (t < w.oldest && p.flags?.pinned !== true) older = true;
      }
      const pg = r.body.pagination as { next_cursor?: string | null; has_more?: boolean } | undefined;
      if (older || !pg?.has_more || !pg.next_cursor) break;
      cursor = pg.next_cursor;
    }
    if (!complete) {
      count(m.stats.unknowable, 'marker check cut short by faults on the observer');
      continue;
    }
    // the baseline's bottom: the oldest item the watch holds that is not pinned (a pinned post sits out of date order)
    const pinned = new Set(feed.filter((f) => f.pinned).map((f) => f.id));
    const times = (held.all(w.watch_id) as Array<{ id: string; t: number }>).filter((h) => !pinned.has(h.id)).map((h) => h.t);
    if (times.length === 0) continue;
    const bottom = Math.min(...times);
    for (const f of feed)
      if (!f.pinned && f.t >= bottom && f.t <= w.marker_at && !has.get(w.platform, f.id))
        out.push(
          `watch ${w.watch_id} (${w.platform}/${w.endpoint} ${canon(params)}): its marker ${w.marker_id} passed item ${f.id} (${new Date(f.t).toISOString()}), which is not in the archive`,
        );
    count(m.stats.checks, 'marker');
  }
  return out;
}

/** A page the observer reads through chaos (the sandbox's faults hit every caller): a few tries. */
async function observe(env: SimEnv, path: string, params: Record<string, string>): Promise<{ body: Record<string, unknown> } | null> {
  for (let i = 0; i < 6; i++) {
    const r = await directGet(env.sb, env.observerKey, path, params);
    if (r.status === 200 && r.body.data && typeof r.body.data === 'object') return r;
    if (r.status >= 400 && r.status < 500 && r.status !== 429) return null;
  }
  return null;
}

/** Feeds the service lists newest first (spec "Incremental sync"), where a marker means "everything newer is held". */
const DATE_ORDERED = new Set([
  'photo_net/profile/posts',
  'photo_net/profile/reels',
  'micro_net/user/tweets',
  'social_net/profile/posts',
  'short_video_net/profile/videos',
  'video_net/channel/videos',
]);

/** 7. The balance the app shows equals the service's (when nothing but the app has moved it since the app last read it). */
export async function checkBalance(env: SimEnv, m: SimModel): Promise<Violations> {
  if (m.balanceMovedElsewhere) return [];
  const b = await env.call<BalanceInfo>('credits.get');
  const truth = env.sb.admin.balance();
  // null: the app has not read a balance yet and says so (not a wrong figure)
  return b.creditsRemaining === null || b.creditsRemaining === truth
    ? []
    : [`the app shows a balance of ${b.creditsRemaining}, the service says ${truth}`];
}

export async function checkAll(env: SimEnv, m: SimModel, after: string): Promise<void> {
  const charges = env.charges();
  const ledger = env.app.archive.listLedger({ limit: 1_000_000 });
  const pendingEntries = env.app.archive.pendingJournal();
  const pending = new Set(pendingEntries.map((j) => j.idempotencyKey));
  const pendingCalls = new Set(pendingEntries.map((j) => j.callId));
  const found: Array<[string, Violations]> = [
    ['config', await checkConfig(env, m)],
    ['items', checkItems(env, m, charges, ledger)],
    ['ledger', checkLedger(m, charges, ledger, pending, pendingCalls)],
    ['paid-once', checkPaidOnce(env, m, charges)],
    ['approved', await checkApproved(env, m)],
    ['balance', await checkBalance(env, m)],
  ];
  if (/run|kill|walk/i.test(after)) found.push(['markers', await checkMarkers(env, m)]);
  for (const [name] of found) count(m.stats.checks, name);
  const bad = found.filter(([, v]) => v.length > 0);
  if (bad.length > 0 && m.stats.survey) {
    for (const [n, v] of bad)
      for (const line of v) {
        if (m.surveyed.has(line)) continue; // one report per violation, not one per step it lasts
        m.surveyed.add(line);
        const kind = `${n}: ${line
          .replace(/\d+/g, '#')
          .replace(/"[^"]*"/g, '"…"')
          .replace(/\([^)]*\)/g, '(…)')
          .slice(0, 120)}`;
        const s = (m.stats.survey[kind] ??= {
          n: 0,
          example: `${line} — after ${after} [variants: ${variantsAt(m, env.sb.admin.now()).join(', ') || 'none'}]`,
        });
        s.n++;
      }
    return;
  }
  if (bad.length > 0) {
    const tail = (xs: unknown[], n: number) =>
      xs
        .slice(-n)
        .map((x) => `    ${JSON.stringify(x)}`)
        .join('\n');
    const ch = charges.map((c) => ({
      rid: c.request_id,
      ep: c.endpoint,
      p: c.params,
      key: c.idempotency_key,
      cr: c.credits_used,
      why: c.charge_reason,
      st: c.status,
      fault: c.fault,
      at: c.at,
    }));
    const lg = ledger.map((l) => ({
      rid: l.requestId,
      ep: l.endpoint,
      key: l.idempotencyKey,
      cr: l.creditsUsed,
      why: l.chargeReason,
      st: l.status,
      err: l.errorType,
      walk: l.walkId,
    }));
    // the whole story of each endpoint a ledger violation names: its charges, ledger rows (with the
    // times each process stamped) and journal entries
    const eps = new Set([...bad.flatMap(([, v]) => v)].flatMap((l) => [...l.matchAll(/\/v1\/([\w/]+)/g)].map((x) => x[1])));
    const story = [...eps]
      .map((ep) => {
        const [platform, ...rest] = ep.split('/');
        const endpoint = rest.join('/');
        const chs = ch.filter((c) => c.ep === `/v1/${ep}`);
        const rows = ledger
          .filter((l) => l.platform === platform && l.endpoint === endpoint)
          .sort((a, b) => (a.id ?? 0) - (b.id ?? 0))
          .map((l) => ({
            id: l.id,
            rid: l.requestId,
            call: l.callId,
            key: l.idempotencyKey,
            p: l.params,
            at: l.startedAt,
            ms: l.durationMs,
            cr: l.creditsUsed,
            why: l.chargeReason,
            st: l.status,
            err: l.errorType,
            cached: l.cached,
          }));
        let js: unknown[];
        try {
          js = testDb(env.app.archive).prepare('SELECT * FROM journal WHERE platform = ? AND endpoint = ?').all(platform, endpoint);
        } catch (e) {
          js = [`(the journal could not be read: ${(e as Error).message})`];
        }
        return `  ${ep}: charges\n${tail(chs, 40)}\n  ledger rows\n${tail(rows, 40)}\n  journal\n${tail(js, 20)}`;
      })
      .join('\n');
    throw new Error(
      `after ${after} [variants: ${variantsAt(m, env.sb.admin.now()).join(', ') || 'none'}]:\n${bad.map(([n, v]) => `  [${n}] ${v.slice(0, 5).join('\n  [' + n + '] ')}`).join('\n')}\n  last charges:\n${tail(ch, 6)}\n  last ledger rows:\n${tail(lg, 6)}\n${story}`,
    );
  }
}

export { itemKey };
