/**
 * Settle (docs/request-core.md "Pipeline of one call", step 7, and "Charges the ledger must not
 * miss"): a successful answer's inferred charge for a lost attempt it proves (loss.ts), the journal
 * `done`, the answer stored; and, for a call that ends without one, the charge the balance
 * attributed to a key it kept.
 */
import type { Envelope } from '../../../shared/api-types';
import { readItems } from '../../archive';
import { ApiError } from '../errors';
import type { InferredEntry } from '../inferred';
import type { LedgerEntry } from '../../ports';
import type { CallResult } from '../types';
import { insideWindow } from './attribution';
import type { Attempt } from './attempt';
import { lossCallOf, type Caller, type CallState } from './context';
import { chargeOfLoss, mayBeFree, ownership, readsAtPage, type LossState, type Ownership } from './loss';

export async function settleSuccess<D>(c: Caller, s: CallState, a: Attempt & { okEnv: Envelope }): Promise<CallResult<D>> {
  const { d } = c;
  const { j, plan } = s;
  const okEnv = a.okEnv;
  const replay = okEnv.idempotent_replay === true || okEnv.charge_reason === 'replay';
  const inferred = await inferLoss(c, s, a, replay);
  const charged = (replay ? 0 : a.creditsUsed) + inferred + s.inferredSoFar;
  c.write(() => d.store.finishJournal(j.callId, 'done', d.clock.now()), charged);
  let stored = { items: [] as CallResult['items'], newItems: 0, unreadable: 0, heldBack: 0 };
  if (!plan.dry) {
    const r = c.write(
      () =>
        d.store.storeResponse(
          {
            callId: j.callId,
            platform: plan.platform,
            endpoint: plan.endpoint,
            paramsHash: plan.hash,
            fetchedAt: d.clock.now(),
            envelope: okEnv,
          },
          plan.source,
          plan.walkId,
        ),
      charged,
    );
    const read = readItems(okEnv.data);
    stored = { items: r.items, newItems: r.newItems, unreadable: read.unreadable, heldBack: read.heldBack };
    if (read.unreadable > 0)
      d.log(
        `${plan.where}: ${read.unreadable} item(s) of the answer could not be read as records; they are kept raw in the stored answer (request ${okEnv.request_id})`,
      );
  }
  // an answer that spent without saying the balance (`credits_remaining` null, a legal reading):
  // the balance shown is read again (free, not rate counted) rather than left where it was
  if (charged > 0 && a.creditsRemaining === null) await d.readBalance();
  return {
    envelope: okEnv as Envelope<D>,
    fromArchive: false,
    callId: j.callId,
    idempotencyKey: j.idempotencyKey,
    attempts: a.attempt,
    creditsUsed: charged,
    creditsInferred: inferred + s.inferredSoFar,
    ...stored,
  };
}

/**
 * Did this answer reveal that a lost attempt had been charged? A replay of its key, or a free owner
 * read with a fresh key, means the service finished the original; what it cost (nothing, when it
 * finished free) the balance or the ledger tells (loss.ts). The credits inferred and recorded.
 */
async function inferLoss(c: Caller, s: CallState, a: Attempt & { okEnv: Envelope }, replay: boolean): Promise<number> {
  const { d, book } = c;
  const { j, plan } = s;
  const okEnv = a.okEnv;
  let ownerRead = okEnv.cached === true && a.creditsUsed === 0 && okEnv.free_call !== true;
  const l = s.loss;
  if (l && !l.lost.settled && !plan.dry) {
    const fresh =
      j.idempotencyKey !== l.lost.idempotencyKey &&
      insideWindow(plan.ep.cache_ttl_seconds, l.lost.startedAt, a.startedAt, !!plan.opts.fresh);
    // an envelope without `cached` (lean reading): a fresh key inside the window answered free with
    // rows is an owner read — once no free call can have covered it (else the balance decides)
    if (
      fresh &&
      okEnv.cached === undefined &&
      okEnv.free_call !== true &&
      a.creditsUsed === 0 &&
      !replay &&
      hasRows(okEnv.data) &&
      !mayBeFree(book, plan)
    )
      ownerRead = true;
    const ownedNot = fresh && typeof okEnv.cached === 'boolean' && !ownerRead;
    const ttl = plan.ep.cache_ttl_seconds;
    // the window in which the account owns what it bought: the catalogue's; where it states none, an
    // owner read contradicts it (a stale catalogue, or a service that caches without saying so), so it
    // is read again, and one that still reads 0 is taken as the longest the spec has seen (finding 21)
    let ownedWindow: Promise<number> | undefined;
    const owned = () => (ownedWindow ??= ttl > 0 ? Promise.resolve(ttl) : ownershipWindow(d, plan.target, ttl));
    const proof = {
      replay: replay && !fresh && j.idempotencyKey === l.lost.idempotencyKey,
      ownerRead,
      ownedNot,
      // the catalogue read again (free); one that cannot be read leaves the window as it was
      windowGone: async () =>
        d.windowNow !== undefined &&
        !insideWindow(await d.windowNow(plan.target).catch(() => ttl), l.lost.startedAt, a.startedAt, !!plan.opts.fresh),
      creditsRemaining: a.creditsRemaining,
      ownedBefore: async () => ownedWhenLost(c, s, l.lost, await owned(), 'request'),
      // pages of the same list owned under other cursors (finding 19), under any reading of the window's
      // start (finding 23): the owner read has two explanations. A page 1 (no cursor) is its own
      listOwned: async () => readsAtPage(plan.params) && ownedWhenLost(c, s, l.lost, await owned(), 'list') !== 'not',
    };
    const inf = await chargeOfLoss(book, d.readBalance, lossCallOf(s, j.callId), l, proof);
    l.lost.settled = true;
    if (inf?.how === 'unsure')
      d.log(
        `${plan.where}: an answer that never arrived may have been charged (its retry was read from the cache, and ${
          inf.why === 'window'
            ? 'whether the account still owned the call when it was sent depends on where the service starts a cache window'
            : 'the account holds a page of the same list under another cursor that can explain that'
        }); nothing recorded — \`loupe credits --reconcile\` shows any difference`,
      );
    else if (inf?.how === 'free') c.recordInferred(l.lost, a.entry, 0, 'free', a.creditsUsed + s.inferredSoFar);
    else if (inf && inf.credits > 0) {
      c.recordInferred(l.lost, a.entry, inf.credits, inf.how, a.creditsUsed + inf.credits + s.inferredSoFar);
      return inf.credits;
    }
  }
  return 0;
}

/**
 * Whether the account owned the lost attempt's exact request (`request`), or a page of its list under
 * another paging value (`list`), when it was sent — under every reading of where a window of `w`
 * seconds starts, none, or some (loss.ts `ownership`).
 */
function ownedWhenLost(c: Caller, s: CallState, lost: LossState['lost'], w: number, which: 'request' | 'list'): Ownership {
  const { d } = c;
  const { plan } = s;
  const from = lost.startedAt - w * 1000 - edgeOf(w);
  const rows = c.write(() =>
    which === 'request'
      ? (d.store.ledgerOfRequest?.(plan.platform, plan.endpoint, plan.hash, from, lost.startedAt) ?? [])
      : otherPages(c, s, from, lost.startedAt),
  );
  return ownership(rows, lost.startedAt, lost.idempotencyKey, w, lost.ledgerUpTo);
}

/**
 * The ledger's answers of the call's list at pages under other paging values, attempts started in
 * [from, to) — pages that may be the lost one under another cursor. A walk that never started over
 * reads each position of its list once, so its own pages are other positions and are left out.
 */
function otherPages(c: Caller, s: CallState, from: number, to: number): LedgerEntry[] {
  const { d } = c;
  const { plan } = s;
  const rows = d.store.ledgerOfList?.(plan.platform, plan.endpoint, plan.canonical, from, to) ?? [];
  const walk = plan.walkId !== null ? d.store.getWalk(plan.walkId) : undefined;
  return walk && !(walk.restarts && walk.restarts > 0) ? rows.filter((r) => r.walkId !== plan.walkId) : rows;
}

/** the clocks' margin at a window's end (attribution.ts `insideWindow`): rows that far past it may still count */
const edgeOf = (ttlSeconds: number): number => Math.min(60_000, ttlSeconds * 100);

/** The longest cache window the spec has seen (Limits 7: 1, 6 and 24 hours). */
const LONGEST_WINDOW_SECONDS = 86_400;

/** The window an owner read implies when the catalogue stated none: the catalogue's again, or the longest seen. */
async function ownershipWindow(d: Caller['d'], target: CallState['plan']['target'], stated: number): Promise<number> {
  const again = d.windowNow ? await d.windowNow(target).catch(() => stated) : stated;
  return again > 0 ? again : LONGEST_WINDOW_SECONDS;
}

/** A call that ends without an answer, with a lost attempt the balance says was charged and whose key it kept: that charge is recorded now. */
export function settleOnExit(c: Caller, s: CallState, e: unknown): unknown {
  const l = s.loss;
  if (!l || l.lost.settled || !l.keptOnBalance || l.attribution.kind !== 'charged' || !(e instanceof ApiError) || e.kind === 'storage')
    return e;
  const { j } = s;
  const credits = l.attribution.credits;
  c.recordInferred(l.lost, inferredEntryOf(s), credits, 'balance', credits);
  l.lost.settled = true;
  s.inferredSoFar += credits;
  // the service holds a finished answer under this key: a later run replays it free
  c.write(() => c.d.store.finishJournal(j.callId, 'done', c.d.clock.now()), s.inferredSoFar);
  return new ApiError({ ...e.toJSON(), kind: e.kind, creditsCharged: (e.creditsCharged ?? 0) + credits });
}

/**
 * A lost attempt the balance says was charged, retried with a fresh key outside any window (the charge
 * was measured `late`, or another movement may explain it): no answer can confirm or deny it — the
 * fresh key is charged either way, never an owner read — so its charge is recorded at once
 * (`inferred:balance`, under its key), and a later loss of the same call is judged on its own.
 */
export function settleCharged(c: Caller, s: CallState, l: LossState, key: 'same' | 'fresh'): void {
  const { plan } = s;
  if (key !== 'fresh' || l.lost.settled || l.attribution.kind !== 'charged') return;
  if (insideWindow(plan.ep.cache_ttl_seconds, l.lost.startedAt, c.d.clock.now(), !!plan.opts.fresh)) return;
  const credits = l.attribution.credits;
  s.inferredSoFar += credits;
  c.recordInferred(l.lost, inferredEntryOf(s), credits, 'balance', s.inferredSoFar);
  l.lost.settled = true;
}

/** What an inferred row of this call takes from it (a call that ends without an answer has no attempt's entry to copy). */
function inferredEntryOf(s: CallState): InferredEntry {
  const { plan, j } = s;
  return {
    callId: j.callId,
    platform: plan.platform,
    endpoint: plan.endpoint,
    params: plan.canonical,
    paramsHash: plan.hash,
    source: plan.source,
    walkId: plan.walkId,
    dryRun: plan.dry,
  };
}

/** the answer carries rows (an empty result is free for everyone: it proves nothing) */
function hasRows(data: unknown): boolean {
  const r = readItems(data);
  return r.items.length + r.unreadable + r.heldBack > 0;
}
