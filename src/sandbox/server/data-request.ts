/**
 * One data request, after auth and limits (http.ts): routing → recall → params → cursor →
 * dry_run → Idempotency-Key → cache lookup and hold (402) → scripted faults / chaos → engine →
 * charge → delivery. See docs/sandbox.md for every choice where the spec is silent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { isValidIdempotencyKey } from '../../shared/api-types';
import { FREE_CALL_MAX_PRICE, headerOf, SHARED_CACHE_PRICE, sleep, type ServerBase } from './base';
import type { ChaosFault } from './chaos';
import { paramsHash } from './cursor';
import { dryRunData, holdFor, makePlan, RequestError, runEngine, type Plan } from './engine';
import { cursorTtlMs, readPosition } from './position';
import type { FaultSpec } from './faults';
import type { Account } from './keys';
import type { ChargeRecord } from './types';
import { CURSOR_ERRORS, NATIVE_TOKEN_PARAMS, presentError, presentSuccess } from './variants';
import { sendDropped, sendStall, sendStatusFault, sendTrickle, sendTruncated } from './wire';

type Json = Record<string, unknown>;

/** 409 IDEMPOTENCY_IN_PROGRESS Retry-After, sandbox seconds. */
const IDEM_RETRY_SANDBOX_S = 2;

const NETWORK_WORDS =
  'Served networks: photo, short-video, social, professional, microblog, thread, long-video, forum and pinboard networks.';

export async function dataRequest(
  s: ServerBase,
  req: IncomingMessage,
  res: ServerResponse,
  c: { requestId: string; account: Account; keyHash: string; sub: string; method: string; url: URL },
): Promise<void> {
  const { requestId, account } = c;
  const query: Record<string, string> = {};
  for (const [k, v] of c.url.searchParams) query[k] = v;
  const segs = c.sub.slice(1).split('/');
  const platform = segs[0];
  const path = segs.slice(1).join('/');
  const endpointPath = `/v1/${platform}/${path}`;
  const idemHeader = headerOf(req, 'idempotency-key');
  const idemKey = idemHeader !== undefined && isValidIdempotencyKey(idemHeader) ? idemHeader : null;
  // whose Idempotency-Keys: the account's (default reading), or each API key's (idempotency-per-key)
  const idemScope = s.variants.has('idempotency-per-key') ? `${account.id}|${c.keyHash}` : account.id;
  const noCache = /no-cache/i.test(headerOf(req, 'cache-control') ?? '');
  // A client that goes away before the answer is written never receives it (undelivered).
  let clientClosed = false;
  res.once('close', () => {
    if (!res.writableFinished) clientClosed = true;
  });

  const record = (status: number, extra: Partial<ChargeRecord>): void => {
    s.ledger.add({
      request_id: requestId,
      key_hash: c.keyHash,
      account: account.id,
      platform,
      endpoint: endpointPath,
      params: query,
      idempotency_key: idemKey,
      credits_used: 0,
      charge_reason: null,
      cached: false,
      free_call: false,
      replay: false,
      status,
      error_type: null,
      fault: null,
      ...(noCache ? { no_cache: true } : {}),
      at: s.clock.now(),
      at_real: Date.now(),
      ...extra,
    });
  };
  const fail = (
    status: number,
    type: string,
    message: string,
    opts: { remaining?: number | null; headers?: Record<string, string>; reason?: string; fault?: string } = {},
  ): void => {
    record(status, { error_type: type, ...(opts.fault ? { fault: opts.fault } : {}) });
    const remaining = opts.remaining === undefined ? account.balance : opts.remaining;
    s.sendJson(
      res,
      status,
      presentError(s.errorBody(requestId, type, message, remaining, opts.reason), s.variants, requestId),
      opts.headers,
    );
  };

  // Routing.
  if (!s.deps.registry.servedPlatforms.includes(platform))
    return fail(404, 'UNKNOWN_PLATFORM', `Unknown network '${platform}'. ${NETWORK_WORDS}`);
  const def = s.deps.registry.findEndpoint(platform, path);
  if (!def) return fail(404, 'UNKNOWN_ENDPOINT', `The ${platform} network has no endpoint '${path}'. See GET /v1/endpoints.`);
  if (!def.gettable) return fail(405, 'METHOD_NOT_SUPPORTED', `'${path}' is listed in the catalogue but cannot be called through the API.`);
  if (c.method !== 'GET') return fail(405, 'METHOD_NOT_SUPPORTED', 'Only GET is supported.', { headers: { Allow: 'GET' } });

  const base = { success: true, platform, endpoint: endpointPath, schema_version: '2' };
  const present = (body: Json): Json =>
    presentSuccess(body, s.variants, { def, requestId, now: s.clock.now(), cursorTtlMs: cursorTtlMs(def) });

  // fit=goal recall: `recall=<data.held_back.recall_id>` on the same endpoint re-reads the full
  // page from cache, free. The id alone names the page (other params are not needed and are
  // ignored). Unknown, foreign (another account or endpoint) or expired ids → 400, free.
  if (def.labels && query.recall !== undefined) {
    const got = s.recalls.get(query.recall, account.id, platform, def.path, s.clock.now());
    if (!got.ok) {
      const msg =
        got.reason === 'recall_expired'
          ? 'This recall id has expired (its cache window ended). Call the endpoint again without `recall`.'
          : 'Unknown recall id for this endpoint. Send the `data.held_back.recall_id` of a fit=goal answer on the same endpoint.';
      return fail(400, 'INVALID_REQUEST', msg, { reason: got.reason });
    }
    const e = got.entry;
    record(200, { charge_reason: 'cached', cached: true });
    return s.sendJson(
      res,
      200,
      present({
        ...base,
        ...(e.pagination ? { pagination: e.pagination } : {}),
        unavailable: e.unavailable,
        credits_used: 0,
        credits_remaining: account.balance,
        request_id: requestId,
        cached: true,
        idempotent_replay: false,
        charge_reason: 'cached',
        free_call: false,
        data: e.data,
        ...(e.warnings.length > 0 ? { warnings: e.warnings } : {}),
      }),
    );
  }

  // Parameters.
  const v = s.deps.registry.validateParams(def, query);
  if (!v.ok) return fail(400, v.type, v.message);
  const params = v.params; // normalised by the registry (empty values dropped)
  let plan: Plan;
  let pos;
  const now = s.clock.now();
  try {
    plan = makePlan(def, params);
    pos = readPosition(
      def,
      params,
      s.codec,
      now,
      s.variants.has('native-ignores-foreign') ? { ignoreServiceTokenIn: NATIVE_TOKEN_PARAMS } : {},
    );
  } catch (e) {
    if (e instanceof RequestError) {
      if (e.type === 'INVALID_CURSOR' && s.variants.has('cursor-error')) {
        const r = CURSOR_ERRORS[s.cursorRejections++ % CURSOR_ERRORS.length];
        return fail(r.status, r.type, e.message);
      }
      return fail(e.status, e.type, e.message);
    }
    throw e;
  }

  const isLabelled = (k: string) => s.labelled.has(k);

  if (plan.dryRun) {
    const data = dryRunData(plan, { world: s.deps.world, now, isLabelled });
    record(200, { charge_reason: 'dry_run' });
    return s.sendJson(
      res,
      200,
      present({
        ...base,
        unavailable: [],
        credits_used: 0,
        credits_remaining: account.balance,
        request_id: requestId,
        cached: false,
        idempotent_replay: false,
        charge_reason: 'dry_run',
        free_call: false,
        data,
      }),
    );
  }

  // Idempotency-Key (scoped per account).
  const cacheOff = s.variants.has('no-cache-window');
  const fingerprint = `${endpointPath}?${paramsHash(query)}`;
  let ceilingRetry = false;
  if (idemKey !== null) {
    const rec = s.idem.get(idemScope, idemKey, now);
    if (rec && rec.fingerprint !== fingerprint)
      return fail(
        422,
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was used with a different request. Use a fresh key per logical operation.',
      );
    if (rec?.state === 'running')
      return fail(409, 'IDEMPOTENCY_IN_PROGRESS', 'A call with the same Idempotency-Key is still running.', {
        headers: s.retryAfter(IDEM_RETRY_SANDBOX_S),
      });
    if (rec?.state === 'done') {
      const body = {
        ...rec.body,
        request_id: requestId,
        credits_used: 0,
        credits_remaining: account.balance,
        idempotent_replay: true,
        charge_reason: 'replay',
        free_call: false,
      };
      record(rec.status, { charge_reason: 'replay', replay: true, cached: Boolean(rec.body.cached) });
      // cache-window-slides: a replay is a free repeat too
      if (s.windowStart() === 'slides' && !cacheOff) s.cache.slide(s.cacheKey(def, params, pos.token), account.id, now);
      return s.sendJson(res, rec.status, present(body));
    }
    ceilingRetry = rec?.state === 'undelivered';
    s.idem.set(idemScope, idemKey, { state: 'running', fingerprint, at: now });
  }
  /** The keyed call ended in an error: forget it (default), or keep the ceiling for its retry. */
  const clearIdem = () => {
    if (idemKey === null) return;
    // strict-ceiling: a same-key retry after ANY unsuccessful original pays the ceiling.
    if (ceilingRetry || s.variants.has('strict-ceiling')) s.idem.set(idemScope, idemKey, { state: 'undelivered', fingerprint, at: now });
    else s.idem.delete(idemScope, idemKey);
  };

  // Cache lookup (exact call, cursor normalised to its position) and the hold.
  const cacheKey = s.cacheKey(def, params, pos.token);
  const start = s.windowStart();
  const look = noCache || cacheOff ? null : s.cache.lookup(cacheKey, now, account.id, start);
  const [hit, owner] = [look?.entry ?? null, look?.owner === true];
  const hold = hit ? (owner ? 0 : SHARED_CACHE_PRICE) : holdFor(plan);
  const available = account.balance - s.heldFor(account.id);
  if (available < hold) {
    clearIdem();
    return fail(
      402,
      'INSUFFICIENT_CREDITS',
      `This call must hold ${hold} credits but the balance is ${account.balance} credits${s.heldFor(account.id) > 0 ? ` (${s.heldFor(account.id)} held by calls in flight)` : ''}.`,
    );
  }
  s.holds.set(account.id, s.heldFor(account.id) + hold);
  let released = false;
  const release = () => {
    if (!released) {
      released = true;
      s.holds.set(account.id, s.heldFor(account.id) - hold);
    }
  };

  try {
    // Scripted faults first (deterministic), else chaos on fresh calls. Never charged, except
    // as documented for drop (variant drop-charged), trickle (when fully delivered) and
    // truncate-charged.
    const scripted: FaultSpec | null = s.faults.take(endpointPath);
    const fault: ChaosFault | null = hit || scripted ? null : s.chaos.draw();
    if (fault) s.counters.chaos[fault] = (s.counters.chaos[fault] ?? 0) + 1;
    const faultName = scripted ? scripted.kind : fault ? `chaos:${fault}` : null;
    let failPage: number | null = null;
    if (fault === '429' || fault === '500' || fault === '503') {
      const page = plan.maxPages > 1 && fault !== '429' ? 1 + Math.floor(s.chaos.next() * plan.maxPages) : 1;
      if (page > 1) failPage = page;
      else {
        clearIdem();
        const f = { fault: faultName ?? undefined };
        if (fault === '429')
          return fail(429, 'RATE_LIMITED', 'Rate limited upstream; retry after the given delay.', {
            ...f,
            remaining: null,
            headers: s.retryAfter(1 + Math.floor(s.chaos.next() * 10)),
          });
        if (fault === '500') return fail(500, 'INTERNAL_ERROR', 'Internal error while serving the call.', f);
        if (s.chaos.next() < 0.5)
          return fail(503, 'UPSTREAM_ERROR', 'The network did not answer, even after internal retries.', {
            ...f,
            headers: s.retryAfter(5),
          });
        return fail(503, 'SERVICE_UNAVAILABLE', 'Capacity exhausted; try again later.', {
          ...f,
          remaining: null,
          headers: s.retryAfter(30),
        });
      }
    }
    if (scripted?.kind === 'status') {
      clearIdem();
      return sendStatusFault(s, res, scripted, requestId, account.balance, (status, type) =>
        record(status, { error_type: type, fault: 'status' }),
      );
    }
    const delay = s.opts.latencyMs + (fault === 'slow' ? s.chaos.config.slowMs : 0);
    if (delay > 0) await sleep(delay);

    /** The answer never reached the client: nothing charged, no ownership, a keyed retry pays the ceiling. */
    const undelivered = (why: string | null): void => {
      if (idemKey !== null) s.idem.set(idemScope, idemKey, { state: 'undelivered', fingerprint, at: now });
      record(499, { error_type: 'CLIENT_CLOSED_REQUEST', fault: why });
      s.counters.byStatus['499'] = (s.counters.byStatus['499'] ?? 0) + 1;
    };
    if (scripted?.kind === 'stall') {
      await sendStall(s, res);
      return undelivered('stall');
    }

    // Produce the answer.
    let data: Json;
    let pagination;
    let unavailable: string[];
    let warnings: string[];
    let charge: number;
    let reason: string;
    let labelledKeys: string[] = [];
    let produced = 0;
    let recall: { id: string; data: Json } | undefined;
    let ceilingCharge: { fresh_cost: number } | null = null;
    if (hit) {
      data = hit.data;
      pagination = hit.pagination;
      unavailable = hit.unavailable;
      warnings = hit.warnings;
      charge = owner ? 0 : SHARED_CACHE_PRICE;
      reason = owner ? 'cached' : 'shared_cache';
      produced = 1;
    } else {
      const r = runEngine(plan, pos.pos, {
        world: s.deps.world,
        codec: s.codec,
        now: s.clock.now(),
        isLabelled,
        failPage,
        newRecallId: () => `rcl_${randomBytes(16).toString('hex')}`,
      });
      if (r.notFound) {
        clearIdem();
        const noSpeech = r.notFound.reason === 'no_speech';
        return fail(
          404,
          'RESOURCE_NOT_FOUND',
          noSpeech ? 'The media has no speech to transcribe.' : 'Nothing was found at the identifier sent.',
          { reason: r.notFound.reason },
        );
      }
      data = r.data;
      pagination = r.pagination;
      unavailable = r.unavailable;
      warnings = r.warnings;
      labelledKeys = r.labelled;
      produced = r.rows;
      recall = r.recall;
      charge = r.pageCosts.reduce((a, b) => a + b, 0);
      reason = charge > 0 ? 'miss' : 'empty';
      // Spec "Idempotency retry charging": the retry of an undelivered original pays the
      // reserved ceiling (the hold) — unless the retry returns nothing.
      if (ceilingRetry && charge > 0) {
        if (produced > 0) {
          if (hold > charge) ceilingCharge = { fresh_cost: charge };
          charge = hold;
        } else {
          charge = 0;
          reason = 'empty';
        }
      }
    }
    if (ceilingRetry && hit && owner) charge = 0;

    let freeCall = false;
    if (charge > 0 && charge <= FREE_CALL_MAX_PRICE && account.freeCallsRemaining > 0) freeCall = true;
    const creditsUsed = freeCall ? 0 : charge;
    const body: Json = {
      ...base,
      ...(pagination ? { pagination } : {}),
      unavailable,
      credits_used: creditsUsed,
      credits_remaining: account.balance - creditsUsed,
      request_id: requestId,
      cached: Boolean(hit),
      idempotent_replay: false,
      charge_reason: reason,
      free_call: freeCall,
      data,
      ...(warnings.length > 0 ? { warnings } : {}),
    };

    /** The answer counts as delivered: charge, cache ownership, idempotency record, ledger 200. */
    const commit = (why: string | null): void => {
      account.balance -= creditsUsed;
      account.usedPeriod += creditsUsed;
      s.counters.credits += creditsUsed;
      if (freeCall) {
        account.freeCallsRemaining--;
        s.counters.freeCalls++;
      }
      for (const k of labelledKeys) s.labelled.add(k);
      if (recall)
        s.recalls.put(recall.id, {
          platform,
          path: def.path,
          storedAt: now,
          ttlMs: def.cacheTtlSeconds * 1000,
          data: recall.data,
          pagination,
          unavailable,
          warnings,
          owners: new Set([account.id]),
        });
      const heldBack = data.held_back as { recall_id?: unknown } | undefined;
      if (hit && typeof heldBack?.recall_id === 'string') s.recalls.share(heldBack.recall_id, account.id);
      if (hit) s.cache.read(hit, account.id, owner, now, start);
      else if (produced > 0 && !cacheOff)
        s.cache.store(
          cacheKey,
          { storedAt: now, ttlMs: def.cacheTtlSeconds * 1000, data, pagination, unavailable, warnings },
          account.id,
          start,
        );
      if (idemKey !== null) s.idem.set(idemScope, idemKey, { state: 'done', fingerprint, at: now, status: 200, body });
      record(200, {
        credits_used: creditsUsed,
        charge_reason: reason,
        cached: Boolean(hit),
        free_call: freeCall,
        fault: why,
        item_ids: rowIds(data),
        ...(ceilingCharge && creditsUsed > ceilingCharge.fresh_cost ? { ceiling_retry: true, fresh_cost: ceilingCharge.fresh_cost } : {}),
      });
    };

    // Delivery.
    const wire = present(body);
    if (clientClosed || res.destroyed || req.socket.destroyed) return undelivered(faultName);
    if (fault === 'drop' || scripted?.kind === 'drop') {
      // Headers and half the body, then the socket is destroyed. Default: undelivered (not
      // charged); variant drop-charged: the service counts it as delivered.
      if (s.variants.has('drop-charged')) commit(faultName);
      else record(499, { error_type: 'CLIENT_CLOSED_REQUEST', fault: faultName });
      if (!s.variants.has('drop-charged') && idemKey !== null)
        s.idem.set(idemScope, idemKey, { state: 'undelivered', fingerprint, at: now });
      return sendDropped(s, res, wire);
    }
    if (scripted?.kind === 'truncate-charged') {
      commit('truncate-charged');
      return sendTruncated(s, res, wire);
    }
    if (scripted?.kind === 'stall-charged') {
      // the service finished and billed the call, then the answer never comes (reading B of a
      // client that timed out or died): owned, and a same-key retry replays it free
      commit('stall-charged');
      return sendStall(s, res);
    }
    if (scripted?.kind === 'trickle') {
      const whole = await sendTrickle(s, res, wire, scripted.intervalMs ?? 10_000, scripted.chunkBytes ?? 1);
      return whole ? commit('trickle') : undelivered('trickle');
    }
    commit(faultName);
    s.sendJson(res, 200, wire);
  } finally {
    release();
  }
}

/** The ids of a data answer's rows (list items, or the single post), as sent. */
function rowIds(data: Json): string[] {
  const ids: string[] = [];
  const idOf = (r: unknown): void => {
    if (r && typeof r === 'object' && typeof (r as Json).id === 'string') ids.push((r as Json).id as string);
  };
  if (Array.isArray(data.items)) {
    for (const it of data.items) if (it && typeof it === 'object') idOf((it as Json).post);
  } else if (data.post) idOf(data.post);
  return ids;
}
