/**
 * The simulation's ledger check on its own (test-sim-check.ts, docs/simulation.md): what it counts as
 * "not told exactly" and what it fails. A lost answer the service charged 20 for, whose charge the
 * balance measured as 40 because another spender spent 20 between the two readings, is the known
 * limit of docs/request-core.md (long-run finding 9) — while another spender was spending; at any
 * other time it is a violation.
 */
import { describe, expect, it } from 'vitest';
import type { ChargeRecord } from '../../sandbox';
import type { LedgerEntry } from '../ports';
import { ledgerEntry } from '../archive/test-fixtures';
import { checkLedger, checkPaidOnce } from './test-sim-check';
import { newModel } from './test-sim-model';
import { QUIET_MS } from '../api/call/attribution';

const charge: ChargeRecord = {
  request_id: 'req_lost',
  key_hash: 'h',
  account: 'acc',
  platform: 'photo_net',
  endpoint: '/v1/photo_net/profile/posts',
  params: { handle: 'bruno.sim' },
  idempotency_key: 'k1',
  credits_used: 20,
  charge_reason: 'miss',
  cached: false,
  free_call: false,
  replay: false,
  status: 200,
  error_type: null,
  fault: 'drop',
  at: 10_000,
  at_real: 0,
} as ChargeRecord;
const row = (o: Partial<LedgerEntry>): LedgerEntry =>
  ledgerEntry({
    callId: 'c',
    startedAt: 10_000,
    durationMs: 5,
    params: '{}',
    paramsHash: 'h',
    idempotencyKey: 'k1',
    requestId: null,
    status: null,
    creditsUsed: 0,
    creditsRemaining: null,
    chargeReason: null,
    source: 'app',
    keyName: null,
    ...o,
  });
const ledger = [
  row({ requestId: 'req_lost', status: 200, errorType: 'NETWORK_MID_BODY' }),
  row({ attempt: 0, creditsUsed: 40, chargeReason: 'inferred:balance' }),
];

describe('checkLedger: a lost answer whose charge the balance measured with another spender’s credits', () => {
  it('is counted, not failed, while another spender was spending', () => {
    const m = newModel([], 0);
    m.otherSpending.push([9_000, 12_000]);
    expect(checkLedger(m, [charge], ledger, new Set())).toEqual([]);
    expect(m.stats.unknowable).toEqual({ 'balance took another spender’s legal amount for a lost answer': 1 });
  });
  it('is a violation when nobody else was spending', () => {
    const m = newModel([], 0);
    expect(checkLedger(m, [charge], ledger, new Set())).toEqual([
      'lost answer req_lost: the service charged 20, the ledger inferred 40 from the balance',
    ]);
  });
});

describe('checkLedger: several lost answers of one call, one charged, the inferred row under another lost key (finding 12)', () => {
  // k1 dropped (not charged), k2 cut short after a charge of 20, k3's owner read proved one finished;
  // the balance could not tell which: the inferred row (the least, 20) sits under k1
  const k2 = { ...charge, request_id: 'req_k2', idempotency_key: 'k2', fault: 'truncate-charged' } as ChargeRecord;
  const lostRows = [
    row({ requestId: 'req_k1', status: 200, errorType: 'NETWORK_MID_BODY' }),
    row({ attempt: 2, idempotencyKey: 'k2', requestId: 'req_k2', status: 200, errorType: 'NETWORK_BAD_JSON' }),
  ];
  it('pairs it with the charge of the same call', () => {
    const m = newModel([], 0);
    const inferred = row({ attempt: 1, creditsUsed: 20, chargeReason: 'inferred:price' });
    expect(checkLedger(m, [k2], [...lostRows, inferred], new Set())).toEqual([]);
  });
  it('not with a charge of another call', () => {
    const m = newModel([], 0);
    const inferred = row({ callId: 'other', attempt: 1, creditsUsed: 20, chargeReason: 'inferred:price' });
    expect(checkLedger(m, [k2], [...lostRows, inferred], new Set())).toEqual([
      'the service charged 20 for /v1/photo_net/profile/posts (request req_k2, truncate-charged) and the ledger has no row for it',
      'the ledger infers 20 credits for photo_net/profile/posts (key k1) that the service never charged',
    ]);
  });
});

describe('checkLedger: another spender between the reading before a lost attempt and its start (finding 15)', () => {
  // the reading before a key is first sent may be the last one, when under 5 s old: a spender who
  // spent in those seconds is between the two readings, though the attempt started after they stopped
  const at = (startedAt: number) => [
    row({ startedAt, requestId: 'req_lost', status: 200, errorType: 'NETWORK_MID_BODY' }),
    row({ startedAt, attempt: 0, creditsUsed: 40, chargeReason: 'inferred:balance' }),
  ];
  it('is the known limit when the attempt started within that reading’s age of the spending', () => {
    const m = newModel([], 0);
    m.otherSpending.push([5_000, 8_000]);
    expect(checkLedger(m, [charge], at(12_000), new Set())).toEqual([]);
    expect(m.stats.unknowable).toEqual({ 'balance took another spender’s legal amount for a lost answer': 1 });
  });
  it('is a violation when the spending ended before any reading the attempt can be measured from', () => {
    const m = newModel([], 0);
    m.otherSpending.push([5_000, 8_000]);
    expect(checkLedger(m, [charge], at(14_000), new Set())).toEqual([
      'lost answer req_lost: the service charged 20, the ledger inferred 40 from the balance',
    ]);
  });
});

describe('checkPaidOnce: a same-key retry that paid the ceiling after its original was lost (finding 17)', () => {
  // the dropped original (not charged), then the retry under its key charged as a new call at the ceiling
  const original = { ...charge, request_id: 'req_drop', credits_used: 0, charge_reason: null, status: 499, at: 10_000 } as ChargeRecord;
  const retry = {
    ...charge,
    request_id: 'req_ceiling',
    credits_used: 340,
    at: 12_000,
    ceiling_retry: true,
    fresh_cost: 20,
  } as ChargeRecord;
  const env = { catalogue: new Map() };
  it('is the known limit while another spender was spending around the lost original', () => {
    const m = newModel([], 0);
    m.otherSpending.push([9_000, 11_000]);
    expect(checkPaidOnce(env, m, [original, retry])).toEqual([]);
    expect(m.stats.unknowable).toEqual({
      'balance took another spender’s legal amount for a lost answer: its same-key retry paid the ceiling': 1,
    });
  });
  it('is a violation when nobody else was spending', () => {
    const m = newModel([], 0);
    expect(checkPaidOnce(env, m, [original, retry])).toEqual([
      'request req_ceiling on /v1/photo_net/profile/posts paid the reserved ceiling 340 where a fresh key would have cost 20',
    ]);
  });
});

describe('checkLedger: a lost answer with no ledger row, soon after another spender moved the balance (finding 18)', () => {
  // only the broken answer's own row: the balance was not trusted, so nothing was inferred
  const lostOnly = [row({ requestId: 'req_lost', status: 200, errorType: 'NETWORK_BAD_JSON' })];
  it('is the known limit within QUIET_MS of the spending (Loupe does not read the balance then)', () => {
    const m = newModel([], 0);
    m.otherSpending.push([1_000, 2_000]);
    expect(checkLedger(m, [{ ...charge, fault: 'truncate-charged', at: 2_000 + QUIET_MS - 1 }], lostOnly, new Set())).toEqual([]);
    expect(m.stats.unknowable).toEqual({ 'lost answer charged soon after another spender: the balance not trusted': 1 });
  });
  it('is the known limit when the lost attempt is Loupe’s first reading since the spending, however much later', () => {
    const m = newModel([], 0);
    m.otherSpending.push([1_000, 2_000]);
    const at = 2_000 + 5 * QUIET_MS;
    expect(checkLedger(m, [{ ...charge, fault: 'truncate-charged', at }], [{ ...lostOnly[0], startedAt: at }], new Set())).toEqual([]);
  });
  it('is a violation once the balance is trusted again, or with nobody else spending', () => {
    const late = newModel([], 0);
    late.otherSpending.push([1_000, 2_000]);
    const at = 2_001 + QUIET_MS + 1_000;
    // Loupe read the balance (an answer) right after the spending: its quiet time ended before the loss
    const ledgerSeen = [
      row({ requestId: 'req_seen', status: 200, startedAt: 2_001, idempotencyKey: 'k0', callId: 'c0' }),
      { ...lostOnly[0], startedAt: at },
    ];
    const said = [
      `the service charged 20 for /v1/photo_net/profile/posts (request req_lost, truncate-charged) and the ledger has no row for it`,
    ];
    expect(checkLedger(late, [{ ...charge, fault: 'truncate-charged', at }], ledgerSeen, new Set())).toEqual(said);
    expect(checkLedger(newModel([], 0), [{ ...charge, fault: 'truncate-charged', at }], ledgerSeen, new Set())).toEqual(said);
  });
});
