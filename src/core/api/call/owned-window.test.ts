/**
 * Simulation finding 22 (docs/simulation.md): a killed process's charged lost answer, taken over,
 * proved charged by the resumed walk's owner read — and nothing recorded, because `ownedAt` took an
 * earlier owner read of the same request (the first kill's takeover, free, `cached`) as the start of
 * a window of its own. The service's window is the purchase's: an owner read opens none, so once the
 * purchase's window is over the next attempt is a miss (charged), however recent the owner read.
 * Generated over the window, the purchase, the owner read and the lost attempt's times.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../ports';
import { ledgerEntry } from '../../archive/test-fixtures';
import { ownedAt, ownership } from './loss';

const row = (o: Partial<LedgerEntry>): LedgerEntry =>
  ledgerEntry({
    id: 1,
    callId: 'c',
    startedAt: 0,
    durationMs: 100,
    platform: 'forum_net',
    endpoint: 'search',
    params: '{"query":"kettle"}',
    paramsHash: 'h',
    idempotencyKey: 'k-old',
    creditsUsed: 20,
    creditsRemaining: 1000,
    ...o,
  });

const ttls = fc.constantFrom(3600, 21_600, 86_400);

describe('ownedAt: the window is the purchase’s (simulation finding 22)', () => {
  it('an owner read after the purchase does not extend the window past the purchase’s', () => {
    fc.assert(
      fc.property(ttls, fc.double({ min: 0.01, max: 0.99, noNaN: true }), fc.double({ min: 0, max: 0.8, noNaN: true }), (ttl, r, l) => {
        const w = ttl * 1000;
        const margin = Math.min(60_000, w * 0.1);
        const bought = 1_000_000;
        const readAt = bought + Math.floor(r * (w - margin));
        // the lost attempt: after the purchase's window, inside the owner read's would-be window
        const lostAt = bought + w + Math.floor(l * (readAt - bought - margin));
        const rows = [
          row({ id: 1, startedAt: bought }),
          row({ id: 2, startedAt: readAt, creditsUsed: 0, chargeReason: 'cached', cached: true, idempotencyKey: 'k-read' }),
        ];
        // the service charged the lost attempt (a miss): the ledger must not call it owned
        expect(ownedAt(rows, lostAt, 'k-lost', ttl)).toBe(false);
        // nor an idempotent replay of the purchase, read later
        const replay = [row({ id: 1, startedAt: bought }), row({ id: 2, startedAt: readAt, creditsUsed: 0, idempotentReplay: true })];
        expect(ownedAt(replay, lostAt, 'k-lost', ttl)).toBe(false);
      }),
    );
  });

  it('a purchase (charged, a free call, an inferred charge) inside its window still owns it', () => {
    fc.assert(
      fc.property(
        ttls,
        fc.double({ min: 0, max: 0.98, noNaN: true }),
        fc.constantFrom<Partial<LedgerEntry>>(
          {},
          { creditsUsed: 0, freeCall: true, chargeReason: 'miss' },
          { status: null, creditsUsed: 20, chargeReason: 'inferred:price', requestId: null },
        ),
        (ttl, l, kind) => {
          const w = ttl * 1000;
          const margin = Math.min(60_000, w * 0.1);
          const bought = 1_000_000;
          const lostAt = bought + 100 + Math.floor(l * (w - margin - 100));
          expect(ownedAt([row({ startedAt: bought, ...kind })], lostAt, 'k-lost', ttl)).toBe(true);
          // after the purchase's window: not owned
          expect(ownedAt([row({ startedAt: bought, ...kind })], bought + w, 'k-lost', ttl)).toBe(false);
        },
      ),
    );
  });

  it('where the window starts decides: a free repeat or a shared read inside its window, no purchase inside it — the readings disagree (finding 23)', () => {
    fc.assert(
      fc.property(
        ttls,
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.double({ min: 0, max: 0.8, noNaN: true }),
        fc.constantFrom<Partial<LedgerEntry>>(
          { creditsUsed: 0, chargeReason: 'cached', cached: true }, // an owner read (slides the window under one reading)
          { creditsUsed: 0, chargeReason: 'replay', idempotentReplay: true }, // a replay (the same)
          { creditsUsed: 2, chargeReason: 'shared_cache', cached: true }, // a shared read: its fetch up to a window earlier
        ),
        (ttl, r, l, free) => {
          const w = ttl * 1000;
          const margin = Math.min(60_000, w * 0.1);
          const bought = 1_000_000;
          const readAt = bought + Math.floor(r * (w - margin));
          // after the purchase's window (and its margin), inside the repeat's window
          const lostAt = bought + w + margin + Math.floor(l * (readAt - bought - 2 * margin));
          const rows = [row({ id: 1, startedAt: bought }), row({ id: 2, startedAt: readAt, idempotencyKey: 'k-read', ...free })];
          expect(lostAt - readAt).toBeLessThan(w - margin);
          expect(ownership(rows, lostAt, 'k-lost', ttl)).toBe('depends');
          // a purchase inside its window: owned under every reading, whatever else the ledger holds
          expect(ownership([...rows, row({ id: 3, startedAt: lostAt - 1000 })], lostAt, 'k-lost', ttl)).toBe('owned');
          // nothing whose window (plus the margin) reaches it: owned under none
          expect(ownership(rows, readAt + w + margin, 'k-lost', ttl)).toBe('not');
          // a purchase at its window's edge: the clocks' margin cannot tell
          expect(ownership([row({ startedAt: bought })], bought + w, 'k-lost', ttl)).toBe('depends');
          // no window: never owned
          expect(ownership(rows, readAt + 1000, 'k-lost', 0)).toBe('not');
        },
      ),
    );
  });
});
