/**
 * Issue 27 #20: a list scheduled without a per-run budget says so as soon as the schedule is set,
 * in words, and a scheduled run it skips says why and how to let the next ones run.
 */
import { describe, expect, it } from 'vitest';
import { watchEnvs } from './test-env';

const watchEnv = watchEnvs();

describe('a schedule without a per-run budget (issue 27 #20)', () => {
  it('the list says so when scheduled; the skipped run names the budget that would let it run; a budget clears both', async () => {
    const e = await watchEnv({ seed: 4, service: { askAboveCredits: () => 5 } });
    const l = await e.watch.create({
      name: 'minutely',
      schedule: { everyHours: 1 / 60 },
      watches: [{ platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } }],
    });
    expect(l.scheduleNote).toMatch(/^Runs every minute go ahead by themselves only within a budget per run/);
    expect(l.scheduleNote).toMatch(/threshold of 5 credits is skipped as needing approval/);
    // a manual list, a paused one, or one with a budget: nothing to say
    expect((await e.watch.update(l.id, { paused: true })).scheduleNote).toBeNull();
    expect((await e.watch.update(l.id, { paused: false })).scheduleNote).not.toBeNull();

    e.sb.admin.advance(120);
    const [skipped] = await e.watch.tick();
    expect(skipped.status).toBe('over_budget');
    expect(skipped.message).toMatch(/^Skipped: needs approval, and a scheduled run has nobody to ask\./);
    expect(skipped.message).toMatch(/Set a budget per run \(at least [\d,]+ credits covers this estimate\)/);

    const budgeted = await e.watch.update(l.id, { budgetPerRun: 1_000 });
    expect(budgeted.scheduleNote).toBeNull();
    e.sb.admin.advance(120);
    const [ran] = await e.watch.tick();
    expect(ran.status).toBe('done');
  });
});
