/**
 * Admin HTTP API (outside /v1, loopback-only): see docs/sandbox.md.
 *   POST /__admin/keys {name?, account?} → {key}
 *   POST /__admin/keys/revoke {key}
 *   POST /__admin/accounts {balance?, free_calls?} → {account}
 *   POST /__admin/balance {balance, account?}
 *   POST /__admin/clock/advance {seconds} → clock
 *   GET  /__admin/clock → {now, iso, time_scale, epoch}
 *   GET  /__admin/charges → {charges: ChargeRecord[]}
 *   GET  /__admin/stats → SandboxStats
 *   POST /__admin/chaos {rate429?, rate500?, rate503?, rateDrop?, rateSlow?, slowMs?} | {rate} | {spec}
 *   GET  /__admin/variants → {variants, available}
 *   POST /__admin/variants {variants: string[]} → {variants}
 *   GET  /__admin/faults → {faults}
 *   POST /__admin/faults {faults: FaultSpec[]} → {faults} (appended; the whole queue is answered)
 *   POST /__admin/faults/clear → {faults: []}
 */
import { parseChaos, type Chaos } from './chaos';
import type { SandboxClock } from './clock';
import type { FaultQueue } from './faults';
import type { KeyStore } from './keys';
import type { ChaosConfig, ChargeRecord, SandboxStats } from './types';
import { SPEC_VARIANTS, type VariantSet } from './variants';

/**
 * What the admin routes act on. `SandboxServer` (http.ts) satisfies it; it is declared here rather
 * than imported from http.ts because http.ts imports this module (no import cycle).
 */
export interface AdminTarget {
  readonly clock: SandboxClock;
  readonly keys: KeyStore;
  readonly chaos: Chaos;
  readonly variants: VariantSet;
  readonly faults: FaultQueue;
  charges(): ChargeRecord[];
  stats(): SandboxStats;
  createKey(name?: string, accountId?: string): string;
  revokeKey(key: string): void;
  setBalance(n: number, accountId?: string): void;
  setChaos(c: ChaosConfig | number): void;
  setVariants(list: unknown): string[];
}

type Result = { status: number; body: Record<string, unknown> };

function bad(message: string, status = 400): Result {
  return { status, body: { success: false, error: { type: 'BAD_REQUEST', message } } };
}

export function handleAdmin(s: AdminTarget, method: string, route: string, raw: string): Result {
  let body: Record<string, unknown> = {};
  if (raw.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
      else return bad('Body must be a JSON object.');
    } catch {
      return bad('Body is not valid JSON.');
    }
  }
  const clock = () => ({
    success: true,
    now: s.clock.now(),
    iso: new Date(s.clock.now()).toISOString(),
    time_scale: s.clock.timeScale,
    epoch: s.clock.epoch,
  });
  const r = route.replace(/\/+$/, '');
  try {
    if (method === 'GET' && r === 'clock') return { status: 200, body: clock() };
    if (method === 'GET' && r === 'charges') return { status: 200, body: { success: true, charges: s.charges() } };
    if (method === 'GET' && r === 'stats') return { status: 200, body: { success: true, ...s.stats() } };
    if (method === 'GET' && r === 'variants')
      return { status: 200, body: { success: true, variants: s.variants.list(), available: SPEC_VARIANTS } };
    if (method === 'GET' && r === 'faults') return { status: 200, body: { success: true, faults: s.faults.pending() } };
    if (method !== 'POST') return bad(`No admin route ${method} /__admin/${r}.`, 404);
    switch (r) {
      case 'keys': {
        const name = typeof body.name === 'string' ? body.name : undefined;
        const account = typeof body.account === 'string' ? body.account : undefined;
        return { status: 200, body: { success: true, key: s.createKey(name, account) } };
      }
      case 'keys/revoke':
        if (typeof body.key !== 'string') return bad('`key` is required.');
        s.revokeKey(body.key);
        return { status: 200, body: { success: true } };
      case 'accounts': {
        const a = s.keys.createAccount({
          balance: typeof body.balance === 'number' ? body.balance : undefined,
          freeCalls: typeof body.free_calls === 'number' ? body.free_calls : undefined,
        });
        return { status: 200, body: { success: true, account: a.id } };
      }
      case 'balance':
        if (typeof body.balance !== 'number') return bad('`balance` (number) is required.');
        s.setBalance(body.balance, typeof body.account === 'string' ? body.account : undefined);
        return { status: 200, body: { success: true, balance: body.balance } };
      case 'clock/advance':
        if (typeof body.seconds !== 'number') return bad('`seconds` (number) is required.');
        s.clock.advance(body.seconds);
        return { status: 200, body: clock() };
      case 'chaos': {
        let c: ChaosConfig | number;
        if (typeof body.spec === 'string') c = parseChaos(body.spec);
        else if (typeof body.rate === 'number') c = body.rate;
        else c = body as ChaosConfig;
        s.setChaos(c);
        return { status: 200, body: { success: true, chaos: s.chaos.config } };
      }
      case 'variants':
        if (!Array.isArray(body.variants)) return bad('`variants` (array of names) is required.');
        return { status: 200, body: { success: true, variants: s.setVariants(body.variants) } };
      case 'faults':
        if (!Array.isArray(body.faults)) return bad('`faults` (array of {kind, count?, match?, ...}) is required.');
        return { status: 200, body: { success: true, faults: s.faults.push(body.faults) } };
      case 'faults/clear':
        s.faults.clear();
        return { status: 200, body: { success: true, faults: [] } };
      default:
        return bad(`No admin route POST /__admin/${r}.`, 404);
    }
  } catch (e) {
    return bad(e instanceof Error ? e.message : String(e));
  }
}
