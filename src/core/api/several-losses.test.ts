/**
 * Several lost answers in one call (simulation finding 12): attempts of one call lost in a row —
 * dropped (charged or not, by the spec's reading) or cut short after the service charged — and then
 * an answer. Whatever the order, the ledger records what the service charged, under the key it
 * charged: the balance read around each lost attempt tells which one was charged (an attempt
 * measured "not charged" yields to a later one), and an owner read is not pinned on a loss the
 * balance cleared. Generated over the faults' order, both readings of a drop and cache windows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { openArchive } from '../archive';
import { createApiCore, scaledClock } from '.';

const TIME_SCALE = 60;
const RUNS = Number(process.env.LOUPE_FC_RUNS ?? 12);
let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 12, balance: 0, freeCalls: 0, timeScale: TIME_SCALE });
});
afterAll(async () => {
  await sb.close();
});

const TARGETS = [
  { platform: 'forum_net', endpoint: 'search/comments', params: {} as Record<string, string> },
  { platform: 'short_video_net', endpoint: 'search', params: { max_pages: '2' } as Record<string, string> },
];
type Fault = 'drop' | 'truncate-charged';

let seq = 0;
async function runCase(c: { target: (typeof TARGETS)[number]; faults: Fault[]; dropCharged: boolean; window: boolean }) {
  sb.admin.setVariants([...(c.dropCharged ? ['drop-charged'] : []), ...(c.window ? [] : ['no-cache-window'])]);
  const account = sb.admin.createAccount({ balance: 100_000, freeCalls: 0 });
  const key = sb.admin.createKey('loupe', account);
  const clock = scaledClock(() => sb.admin.now(), TIME_SCALE);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  const path = `/v1/${c.target.platform}/${c.target.endpoint}`;
  const api = createApiCore({ baseUrl: sb.url, getKey: () => key, store: archive, clock, timeoutMs: 5_000 });
  try {
    await api.call({ platform: 'photo_net', endpoint: 'profile', params: { handle: `warm${++seq}` } });
    sb.admin.advance(60);
    sb.admin.queueFaults(c.faults.map((kind) => ({ kind, match: path })));
    const r = await api.call({ ...c.target, params: { ...c.target.params, query: `lost${++seq}` } });
    expect(r.envelope.success).toBe(true);
    const mine = sb.admin.charges().filter((x) => x.key_hash === sb.admin.keyHash(key));
    const ledger = archive.listLedger({ limit: 1000 });
    return { mine, ledger };
  } finally {
    await api.close();
    archive.close();
    sb.admin.clearFaults();
  }
}

describe('several lost answers in one call (simulation finding 12)', () => {
  it('the ledger equals the charges, and each inferred charge sits under a key the service charged', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          target: fc.constantFrom(...TARGETS),
          faults: fc.array(fc.constantFrom<Fault>('drop', 'truncate-charged'), { minLength: 2, maxLength: 3 }),
          dropCharged: fc.boolean(),
          window: fc.boolean(),
        }),
        async (c) => {
          const { mine, ledger } = await runCase(c);
          const total = (xs: Array<{ credits_used?: number; creditsUsed?: number }>) =>
            xs.reduce((n, x) => n + (x.credits_used ?? x.creditsUsed ?? 0), 0);
          expect(total(ledger)).toBe(total(mine));
          const chargedKeys = new Set(mine.filter((x) => x.credits_used > 0).map((x) => x.idempotency_key));
          for (const l of ledger.filter((x) => x.chargeReason?.startsWith('inferred:')))
            expect(chargedKeys.has(l.idempotencyKey), `inferred ${l.creditsUsed} under ${l.idempotencyKey}`).toBe(true);
        },
      ),
      { numRuns: RUNS, seed: 12 },
    );
  }, 120_000);

  it('a dropped answer the balance cleared, then one cut short after a charge: the charge is recorded under its own key', async () => {
    const { mine, ledger } = await runCase({ target: TARGETS[1], faults: ['drop', 'truncate-charged'], dropCharged: false, window: true });
    const cut = mine.find((x) => x.fault === 'truncate-charged');
    expect(cut?.credits_used).toBe(40);
    const inferred = ledger.filter((x) => x.chargeReason?.startsWith('inferred:'));
    expect(inferred.map((x) => [x.idempotencyKey, x.creditsUsed, x.chargeReason])).toEqual([
      [cut?.idempotency_key, 40, 'inferred:balance'],
    ]);
  });
});
