/**
 * A process killed with answers on their way, then the same requests run again by a new one: the
 * ledger equals what the service charged, and the reconciliation agrees (docs/request-core.md
 * "Charges the ledger must not miss"). The kill is made in-process: after the generated number of
 * answers the transport stops handing answers to the core and the archive refuses every access (the
 * dead process writes nothing more), while the requests already sent finish at the service —
 * charged, covered by an introductory free call, or, for those cut off before the service answered
 * (`abort`), never finished. Generated over the kill point, the account's free calls, the requests
 * (metered pages whose ceiling is above the free-call price, and fixed-price ones below it), which
 * requests in flight are cut off, and the readings of the spec that report `free_call`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { openArchive, type Archive } from '../archive';
import { StorageError } from '../storage-error';
import type { HttpOutcome, HttpPort } from './http';
import { createApiCore, scaledClock, type ApiCore } from '.';

const TIME_SCALE = 60;
const RUNS = Number(process.env.LOUPE_FC_RUNS ?? 8);
let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 26, balance: 0, freeCalls: 0, timeScale: TIME_SCALE, latencyMs: 5 });
});
afterAll(async () => {
  await sb.close();
});

/** a metered list page (20-340: its ceiling is above the free-call price) and a fixed-price profile (20) */
const KINDS = [
  (i: number) => ({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: `kill_${i}` } }),
  (i: number) => ({ platform: 'thread_net', endpoint: 'profile', params: { handle: `kill_${i}` } }),
];

const dead = (message: string): HttpOutcome => ({ status: null, headers: {}, failure: { reason: 'timeout', message }, durationMs: 0 });

/**
 * The transport of a process that dies after `answers` data answers: from then on no answer reaches
 * the core and nothing new is sent; requests in flight finish at the service (their sockets stay
 * open) unless `cut` picks them, whose connection is closed as the process dies.
 */
class Dying implements HttpPort {
  killed = false;
  private delivered = 0;
  private readonly inFlight = new Set<AbortController>();
  readonly finishing: Array<Promise<unknown>> = [];
  constructor(
    private readonly inner: HttpPort,
    private readonly answers: number,
    private readonly cut: (n: number) => boolean,
    private readonly onKill: () => void,
  ) {}

  async get(url: string, headers: Record<string, string>, _signal?: AbortSignal, timeoutMs?: number): Promise<HttpOutcome> {
    if (this.killed) return dead('killed');
    const data = !/\/v1\/(credits|endpoints|openapi\.json)\b/.test(url);
    const ac = new AbortController();
    this.inFlight.add(ac);
    const p = this.inner.get(url, headers, ac.signal, timeoutMs).catch(() => dead('cut off'));
    this.finishing.push(p);
    const out = await p;
    this.inFlight.delete(ac);
    if (this.killed) return dead('killed');
    if (data && ++this.delivered > this.answers) {
      this.kill();
      return dead('killed');
    }
    return out;
  }

  private kill(): void {
    this.killed = true;
    this.onKill();
    let n = 0;
    for (const ac of this.inFlight) if (this.cut(n++)) ac.abort();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The archive as a dying process sees it: every access refused once it is dead. */
function dyingStore(a: Archive, isDead: () => boolean): Archive {
  return new Proxy(a, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (isDead()) throw new StorageError({ kind: 'readonly', path: ':memory:', message: 'the process is dead' });
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

interface Case {
  free: number;
  kinds: number[];
  answers: number;
  cut: boolean[];
  variants: string[];
}

async function runCase(c: Case, seq: number) {
  sb.admin.setVariants(c.variants);
  const account = sb.admin.createAccount({ balance: 100_000, freeCalls: c.free });
  const key = sb.admin.createKey(`kill-${seq}`, account);
  const clock = scaledClock(() => sb.admin.now(), TIME_SCALE);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  const targets = c.kinds.map((k, i) => KINDS[k](seq * 100 + i));
  const run = (api: ApiCore) => Promise.allSettled(targets.map((t, i) => api.call(t, { opKey: `op:${seq}:${i}`, source: 'test' })));
  let dying: Dying | undefined;
  const first = createApiCore({
    baseUrl: sb.url,
    getKey: () => key,
    store: dyingStore(archive, () => dying?.killed === true),
    clock,
    timeoutMs: 30_000,
    http: (inner) =>
      (dying = new Dying(
        inner,
        c.answers,
        (n) => c.cut[n % c.cut.length],
        () => undefined,
      )),
  });
  const second = () => createApiCore({ baseUrl: sb.url, getKey: () => key, store: archive, clock, timeoutMs: 30_000 });
  try {
    await run(first);
    // the dead process's requests finish (or not) at the service before the next process starts
    await Promise.allSettled(dying?.finishing ?? []);
    await first.close().catch(() => undefined);
    const api = second();
    try {
      const results = await run(api);
      for (const r of results) expect(r.status, r.status === 'rejected' ? String(r.reason) : '').toBe('fulfilled');
    } finally {
      await api.close();
    }
    const charged = sb.admin
      .charges()
      .filter((r) => r.account === account)
      .reduce((s, r) => s + r.credits_used, 0);
    const ledger = archive.listLedger({ limit: 10_000 });
    const recorded = ledger.reduce((s, r) => s + r.creditsUsed, 0);
    const report = archive.reconcileLedger();
    const pending = archive.pendingJournal().length;
    return { charged, recorded, report, pending, balance: sb.admin.balance(account), killed: dying?.killed === true };
  } finally {
    archive.close();
  }
}

describe('a process killed with answers on their way, then resumed', () => {
  it('ledger = what the service charged, and the reconciliation agrees (generated)', async () => {
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          free: fc.integer({ min: 0, max: 8 }),
          kinds: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 2, maxLength: 9 }),
          answers: fc.integer({ min: 0, max: 8 }),
          cut: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
          variants: fc.constantFrom<string[]>([], ['drop-charged'], ['null-remaining'], ['cache-window-purchase'], ['no-cache-window']),
        }),
        async (c) => {
          const r = await runCase(c, ++seq);
          const say = JSON.stringify({ ...c, killed: r.killed, pending: r.pending });
          const agrees = r.report.gaps.length === 0 && (r.report.expectedBalance === null || r.report.expectedBalance === r.balance);
          // never more than the service charged
          expect(r.recorded, say).toBeLessThanOrEqual(r.charged);
          // where no cache window makes a retry an owner read, a lost answer nothing can tell about
          // stays pending (simulation finding 13): the reconciliation shows the difference
          if (c.variants.includes('no-cache-window') && r.pending > 0) expect(agrees, say).toBe(r.recorded === r.charged);
          else {
            expect(r.recorded, say).toBe(r.charged);
            expect(r.report.gaps, say).toEqual([]);
            expect(agrees, say).toBe(true);
          }
        },
      ),
      { numRuns: RUNS, seed: 26 },
    );
  }, 60_000);
});
