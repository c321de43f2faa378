/**
 * The contract's `catalogue.*` and `api.*` methods: the catalogue, free quotes (0 when the archive
 * already holds the exact call inside its cache window), walk estimates with the spend policy's
 * decision, and one charged call (archive first).
 */
import type { Catalogue, CatalogueEndpoint } from '../../shared/api-types';
import type { CallResult, MethodParsedInput, Target } from '../../shared/contract';
import { canonicalParams, normalizeEndpoint, paramsHash } from '../api';
import { aboveAsk } from '../../shared/spend-policy';
import { storedInsideWindow } from '../api';
import { findEndpoint, toTarget } from './common';
import type { AppParts, Slice } from './parts';

export function callMethods(parts: Pick<AppParts, 'archive' | 'clock' | 'api' | 'settingsFile'>): Slice<'catalogue'> & Slice<'api'> {
  const { archive, clock } = parts;
  /** calls in progress that were given a callId (api.cancel) */
  const cancels = new Map<string, AbortController>();

  /** The exact call is already archived inside its cache window (then it costs nothing). */
  function inArchive(t: Target, ep: CatalogueEndpoint): boolean {
    if (!ep.cache_ttl_seconds || ep.cache_ttl_seconds <= 0) return false;
    const endpoint = normalizeEndpoint(t.platform, ep.path);
    const hash = paramsHash(`${t.platform}/${endpoint}?${canonicalParams(t.params)}`);
    const now = clock.now();
    const hit = archive.findFreshResponse(t.platform, endpoint, hash, now - ep.cache_ttl_seconds * 1000);
    return !!hit && storedInsideWindow(hit.fetchedAt, now, ep.cache_ttl_seconds);
  }

  return {
    async 'catalogue.get'(i): Promise<Catalogue> {
      return (await parts.api()).catalogue.load({ force: i.force });
    },
    async 'catalogue.endpoint'(i) {
      const core = await parts.api();
      await core.catalogue.load();
      return core.catalogue.find(i.platform, i.endpoint) ?? null;
    },

    async 'api.quote'(t) {
      const core = await parts.api();
      const ep = await findEndpoint(core, t);
      const balance = core.balance();
      if (inArchive(t, ep)) return { creditsMin: 0, creditsMax: 0, servedFromArchive: true, balance };
      const q = await core.quote(toTarget(t), { source: 'quote' });
      return {
        creditsMin: q.credits_min,
        creditsMax: q.credits_max,
        ...(q.estimate ? { estimate: q.estimate } : {}),
        servedFromArchive: false,
        balance: core.balance(),
      };
    },
    async 'api.estimateWalk'(i) {
      const core = await parts.api();
      const e = await core.estimateWalk(toTarget(i.target), { pages: i.pages });
      return { ...e, balance: core.balance(), needsConfirmation: aboveAsk(e.creditsMax, parts.settingsFile.read().app.askAboveCredits) };
    },
    'api.call': (i) => cancellableCall(parts, cancels, i),
    async 'api.cancel'(i) {
      const abort = cancels.get(i.callId);
      abort?.abort();
      return abort !== undefined;
    },
    async 'api.validate'(t) {
      const v = await (await parts.api()).validate(toTarget(t));
      return v.ok
        ? { ok: true, message: null, warnings: v.warnings.map((w) => w.message) }
        : { ok: false, message: v.message, warnings: [] };
    },
    async 'api.dryRun'(i) {
      const q = await (await parts.api()).quote(toTarget(i.target), { source: i.source });
      return { ...q };
    },
  };
}

/** One charged call (archive first); one given a callId can be stopped by `api.cancel` (its signal). */
async function cancellableCall(
  parts: Pick<AppParts, 'api'>,
  cancels: Map<string, AbortController>,
  i: MethodParsedInput<'api.call'>,
): Promise<CallResult> {
  // `save` is accepted for the contract's sake: every answer is archived (ledger and provenance need it)
  const core = await parts.api();
  const id = i.callId;
  const abort = id !== undefined ? new AbortController() : null;
  if (id !== undefined && abort) cancels.set(id, abort);
  try {
    const r = await core.call(toTarget(i.target), { source: i.source, fresh: i.fresh, priority: 'interactive', signal: abort?.signal });
    return {
      envelope: r.envelope,
      fromArchive: r.fromArchive,
      callId: r.callId,
      newItems: r.newItems,
      creditsUsed: r.creditsUsed,
      unreadable: r.unreadable,
    };
  } finally {
    if (id !== undefined && cancels.get(id) === abort) cancels.delete(id);
  }
}
