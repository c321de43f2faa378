/** GET /v1/credits on a disk that cannot keep the reading: the answer is still given (balance.ts). */
import { describe, expect, it } from 'vitest';
import { storageError } from '../../storage-error';
import { Emitter } from '../events';
import { InstantClock, MemoryStore } from '../test-helpers';
import type { ApiEvents } from '../types';
import { createBalance } from './balance';

function setup(figures: number[]) {
  const store = new MemoryStore();
  const events = new Emitter<ApiEvents>();
  const warnings: string[] = [];
  events.on('warning', (w) => warnings.push(w.message));
  let n = 0;
  const bal = createBalance({
    store,
    clock: new InstantClock(),
    events,
    meta: async () => ({ success: true, credits_remaining: figures[n++], plan: 'paid' }),
  });
  return { store, bal, warnings };
}

describe('GET /v1/credits when the archive cannot keep the balance', () => {
  it('answers the figures, keeps them in memory and says once that they were not kept', async () => {
    const { store, bal, warnings } = setup([900, 850]);
    store.setBalance = () => {
      throw storageError('full', '/data/loupe.db', { op: 'write', code: 'SQLITE_FULL' });
    };
    expect(await bal.credits()).toEqual({ success: true, credits_remaining: 900, plan: 'paid' });
    expect(bal.balance()).toBe(900);
    expect(await bal.readBalance()).toBe(850);
    expect(bal.balance()).toBe(850);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^the balance the service answered \(900\) is shown but could not be kept: .*\/data\/loupe\.db.*full/);
  });

  it('another failure of the store is not swallowed', async () => {
    const { store, bal, warnings } = setup([900]);
    store.setBalance = () => {
      throw new TypeError('a bug');
    };
    await expect(bal.credits()).rejects.toThrow('a bug');
    expect(warnings).toHaveLength(0);
  });
});
