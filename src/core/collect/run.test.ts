/**
 * Running a plan (run.ts, drive.ts) against the sandbox: every input driven to a state with its
 * reason; the service's charges equal the ledger and fall inside the plan's figures (the minimum
 * exactly, where nothing is held and every list is long enough); one budget for the whole run, the
 * rest skipped and continued by the next run; cancel and resume paying every page once; pages held
 * in the archive free; a feed's later run reads only its new items; the ask-above rule for the plan.
 */
import { describe, expect, it } from 'vitest';
import { priceOf } from '../api/catalogue';
import { collectEnvs, type CollectEnv } from './test-env';
import { createCollectService } from './index';

const env = collectEnvs();
const HANDLES = Array.from({ length: 12 }, (_, i) => `runner${i}`).join('\n');

/** every charged page (same path and params, cursor included) charged at most once */
function paidOnce(e: CollectEnv): void {
  const seen = new Map<string, number>();
  for (const c of e.sb.admin.charges()) {
    if (c.credits_used <= 0) continue;
    const k = `${c.endpoint}?${JSON.stringify(
      Object.entries(c.params)
        .filter(([k]) => k !== 'dry_run')
        .sort(),
    )}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  expect([...seen.entries()].filter(([, n]) => n > 1)).toEqual([]);
}

describe('a plan run', () => {
  it('collects every input, spends the plan’s minimum where nothing is held, the ledger equal to the charges, the results a saved set', async () => {
    const e = await env({ timeScale: 30 });
    const plan = await e.collect.create(
      e.design({ name: 'Runners', source: { type: 'text', text: HANDLES }, do: 'feed', networks: ['micro_net'], pages: 2 }),
    );
    expect(plan.id).not.toBeNull();
    expect(e.sb.admin.charges()).toEqual([]); // saving a plan spends nothing
    const st = await e.collect.run('Runners');
    expect(st.status).toBe('done');
    expect(st.counts).toMatchObject({ done: 12, waiting: 0, failed: 0, skipped: 0 });
    expect(e.charged()).toBe(plan.figures.creditsMin);
    expect(e.ledger()).toBe(e.charged());
    expect(st.spent).toBe(e.charged());
    paidOnce(e);
    // the saved set named after the plan lists what was collected
    const set = e.archive.listResultSets().find((s) => s.id === st.setId)!;
    expect(set.name).toBe('Runners');
    const inputs = e.collect.inputs('Runners', { limit: 100 }).rows;
    expect(e.archive.count(set.query)).toBe(inputs.reduce((s, i) => s + i.items, 0));
    expect(inputs.every((i) => i.pagesDone === 2 && i.credits > 0 && i.marker !== null)).toBe(true);
  });

  it('a run opened on a clock a minute ahead of the service’s counts its own spending: the ledger, not the time', async () => {
    // before the first answer Loupe knows only this computer's clock (the built-in sandbox's starts
    // on the minute; a laptop's may be minutes off): the run's start is stamped after its own calls
    const e = await env({ timeScale: 30 });
    const ahead = { now: () => e.clock.now() + 60_000, sleep: e.clock.sleep.bind(e.clock) };
    const collect = createCollectService({ api: async () => e.api, archive: e.archive, clock: ahead, askAboveCredits: () => null });
    try {
      await collect.create(
        e.design({ name: 'Ahead', source: { type: 'text', text: 'ahead1\nahead2' }, do: 'feed', networks: ['micro_net'], pages: 1 }),
      );
      const st = await collect.run('Ahead');
      expect(st.status).toBe('done');
      expect(e.charged()).toBeGreaterThan(0);
      expect(st.spent).toBe(e.charged());
      expect(st.spentTotal).toBe(e.charged());
    } finally {
      await collect.close();
    }
  });

  it('asked not to wait, it answers once the run has started; the run goes on to the end', async () => {
    const e = await env({ timeScale: 30 });
    await e.collect.create(
      e.design({ name: 'Bg', source: { type: 'text', text: 'bg1\nbg2\nbg3' }, do: 'profile', networks: ['micro_net'] }),
    );
    const started = await e.collect.run('Bg', { wait: false });
    expect(started.status).toBe('running');
    // waits for the state (the test's timeout bounds it), not for a count of ticks
    let st = e.collect.get('Bg');
    while (st?.status === 'running') {
      await new Promise((r) => setTimeout(r, 10));
      st = e.collect.get('Bg');
    }
    expect(st?.status).toBe('done');
    expect(st?.counts.done).toBe(3);
  });

  it('one budget for the whole run: pages that do not fit are never sent, the rest skipped, the next run continues them paying each page once', async () => {
    const e = await env({ timeScale: 30 });
    const price = priceOf((await e.api.catalogue.load(), e.api.catalogue.find('micro_net', 'profile'))!);
    const text = Array.from({ length: 10 }, (_, i) => `budgeted${i}`).join('\n');
    await e.collect.create(
      e.design({ name: 'B', source: { type: 'text', text }, do: 'profile', networks: ['micro_net'], budget: 4 * price.max }),
    );
    const first = await e.collect.run('B');
    expect(first.status).toBe('partial');
    expect(first.counts.done).toBe(4);
    expect(first.counts.skipped).toBe(6);
    expect(e.charged()).toBeLessThanOrEqual(4 * price.max);
    const skipped = e.collect.inputs('B', { states: ['skipped'] }).rows;
    expect(skipped[0].reason).toMatch(/budget of 80 credits reached/);
    const second = await e.collect.run('B', { budget: null, approved: true });
    expect(second.status).toBe('done');
    expect(second.counts.done).toBe(10);
    expect(e.charged()).toBe(10 * price.min);
    expect(second.spentTotal).toBe(e.charged());
    paidOnce(e);
  });

  it('cancel, then run again: each input goes on from where it stopped, nothing is paid twice', async () => {
    const e = await env({ timeScale: 30 });
    const text = Array.from({ length: 8 }, (_, i) => `cancel${i}`).join('\n');
    const plan = await e.collect.create(
      e.design({ name: 'C', source: { type: 'text', text }, do: 'feed', networks: ['photo_net'], pages: 3 }),
    );
    e.sb.admin.queueFaults([{ kind: 'trickle', intervalMs: 40, chunkBytes: 200, count: 3 }]);
    const running = e.collect.run('C');
    for (let i = 0; i < 400 && e.sb.admin.charges().filter((c) => c.credits_used > 0).length < 4; i++)
      await new Promise((r) => setTimeout(r, 10));
    const cancelled = await e.collect.cancel('C');
    expect((await running).status).toBe('cancelled');
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.counts.done).toBeLessThan(8);
    const resumed = await e.collect.run('C');
    expect(resumed.status).toBe('done');
    expect(resumed.runs).toBe(1); // the same run, continued
    expect(e.charged()).toBe(plan.figures.creditsMin);
    expect(e.ledger()).toBe(e.charged());
    paidOnce(e);
  });

  it('inputs the archive holds inside their cache window are held: free, and their items still in the plan’s set', async () => {
    const e = await env({ timeScale: 30 });
    await e.api.call({ platform: 'micro_net', endpoint: 'profile', params: { handle: 'kept' } }, { source: 'elsewhere' });
    const before = e.charged();
    await e.collect.create(e.design({ name: 'H', source: { type: 'text', text: 'kept\nnew1' }, do: 'profile', networks: ['micro_net'] }));
    const st = await e.collect.run('H');
    expect(st.counts).toMatchObject({ held: 1, done: 1 });
    expect(e.charged() - before).toBe(20);
    const held = e.collect.inputs('H', { states: ['held'] }).rows[0];
    expect(held.reason).toContain('answered from the archive');
    expect(e.archive.count(e.archive.listResultSets().find((s) => s.id === st.setId)!.query)).toBe(2);
  });

  it('a feed’s next run reads only its new items (down to the newest held), and a done non-feed input is not read again', async () => {
    const e = await env({ timeScale: 30 });
    await e.collect.create(
      e.design({ name: 'F', source: { type: 'text', text: 'feedy\nfeedz' }, do: 'feed', networks: ['micro_net'], pages: 2 }),
    );
    await e.collect.run('F');
    const markers = e.collect.inputs('F').rows.map((r) => r.marker);
    const items0 = e.collect.inputs('F').rows.map((r) => r.items);
    e.sb.admin.advance(3 * 86_400); // new posts appear; the cache windows pass
    const n0 = e.sb.admin.charges().length;
    const again = await e.collect.run('F');
    expect(again.status).toBe('done');
    expect(again.runs).toBe(2);
    const calls = e.sb.admin.charges().slice(n0);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.params.stop_at_id !== undefined && c.params.since !== undefined)).toBe(true);
    const rows = e.collect.inputs('F').rows;
    rows.forEach((r, i) => {
      expect(r.marker).not.toBe(markers[i]);
      expect(r.items).toBeGreaterThan(items0[i]);
    });
    // no new item duplicates what the first run held
    const ids = e.archive.listQuery({ source: { type: 'source', id: again.source }, limit: 1000 }).rows.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    await e.collect.create(e.design({ name: 'P', source: { type: 'text', text: 'prof1' }, do: 'profile', networks: ['micro_net'] }));
    await e.collect.run('P');
    const n1 = e.sb.admin.charges().length;
    expect((await e.collect.run('P')).message).toContain('Nothing new to collect');
    expect(e.sb.admin.charges().length).toBe(n1);
  });

  it('the ask-above rule applies to the plan as one spend; a budget is the standing approval; a refused input keeps its reason', async () => {
    const e = await env({ timeScale: 30, askAbove: 50 });
    await e.collect.create(
      e.design({ name: 'A', source: { type: 'text', text: 'a1\na2\nmissing_person' }, do: 'profile', networks: ['micro_net'] }),
    );
    await expect(e.collect.run('A')).rejects.toThrow(/could cost up to 60 credits, above your confirmation threshold of 50/);
    expect(e.sb.admin.charges()).toEqual([]);
    const st = await e.collect.run('A', { budget: 1000 });
    expect(st.counts).toMatchObject({ done: 2, failed: 1 });
    const failed = e.collect.inputs('A', { states: ['failed'] }).rows[0];
    expect(failed.reason).toContain('RESOURCE_NOT_FOUND');
    // a refusal another run would only repeat is not retried
    expect((await e.collect.run('A', { budget: 1000 })).message).toContain('Nothing new to collect');
  });
});
