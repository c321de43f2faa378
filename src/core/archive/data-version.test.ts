/**
 * The archive's dataVersion (the key of the library counts, chart results and the network view's
 * build) moves with every write a query of the items can see — new items, tags, notes, overrides,
 * the ledger's calls (source filters read them) — and stays for the quiet ones: the balance, the
 * journal and the analysis index's upkeep. A network built once is not built again for them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseInput } from '../../shared/contract';
import { AnalysisIndex } from '../analysis/analysis-index';
import { networkMethods } from '../analysis/network-methods';
import { openArchive } from './index';
import { ledgerEntry, post } from './test-fixtures';

const dir = mkdtempSync(join(tmpdir(), 'loupe-dataver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = ledgerEntry({
  startedAt: 0,
  durationMs: 10,
  platform: 'micro_net',
  endpoint: 'search',
  params: '{}',
  paramsHash: 'h',
  idempotencyKey: null,
  requestId: 'r',
  creditsUsed: 1,
  creditsRemaining: 10,
});

describe('dataVersion', () => {
  it('moves for what a query of the items can see, stays for the balance, the journal and the index upkeep', async () => {
    const a = openArchive(':memory:');
    const items = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        platform: 'micro_net',
        kind: 'post',
        record: post({ id: String(from + i), text: `#t${i % 3} #u${i % 2} post ${from + i}` }),
      }));
    a.ingestItems(items(1, 20), { callId: 'seed', source: 'test' });
    const index = new AnalysisIndex(a);
    const m = networkMethods({ archive: a, dataDir: dir });
    const facts = vi.spyOn(a, 'networkFactRows');
    const build = () => m['network.build'](parseInput('network.build', { query: {}, network: 'co-hashtag', maxNodes: 10 }));
    await build();
    expect(facts).toHaveBeenCalledTimes(1);

    let v = a.dataVersion();
    const quiet: Array<[string, () => void]> = [
      ['balance', () => a.setBalance(42, 1)],
      [
        'journal',
        () =>
          a.beginJournal({
            callId: 'j1',
            opKey: 'one',
            idempotencyKey: 'k',
            platform: 'micro_net',
            endpoint: 'search',
            params: '{}',
            paramsHash: 'h',
            state: 'pending',
            createdAt: 1,
            finishedAt: null,
          }),
      ],
      ['journal done', () => a.finishJournal('j1', 'done', 2)],
      ['index upkeep', () => expect(index.catchUp(Infinity)).toBe(true)],
      ['balance forgotten', () => a.clearBalance()],
    ];
    for (const [what, f] of quiet) {
      f();
      expect(a.dataVersion(), what).toBe(v);
    }
    await build();
    expect(facts, 'the network is not built again').toHaveBeenCalledTimes(1);
    expect(a.count({})).toBe(20);

    const loud: Array<[string, () => void]> = [
      ['new items', () => a.ingestItems(items(100, 3), { callId: 'more', source: 'test' })],
      ['a call in the ledger', () => a.recordAttempt(entry)],
      ['a tag', () => a.addTag({ platform: 'micro_net', kind: 'post', id: '1' }, 'keep')],
      ['a note', () => a.setNote({ platform: 'micro_net', kind: 'post', id: '2' }, 'look again')],
    ];
    for (const [what, f] of loud) {
      f();
      expect(a.dataVersion(), what).not.toBe(v);
      v = a.dataVersion();
    }
    await build();
    expect(facts).toHaveBeenCalledTimes(2);
    expect(a.count({})).toBe(23);
    // the index's upkeep of the new items is quiet again
    index.catchUp(Infinity);
    expect(a.dataVersion()).toBe(v);
    a.close();
  });
});
