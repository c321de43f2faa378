/**
 * The simulation's spending and world ops (issue 24): walks (start, fetch more, cancel, resume),
 * single calls, the sandbox's clock, spec variants and faults, another spender on the account, a
 * top-up, a process killed mid-walk, a restart. Not shipped.
 */
import fc from 'fast-check';
import { SPEC_VARIANTS } from '../../sandbox';
import type { BalanceInfo, WalkInfo } from '../../shared/contract';
import { directGet, spawnWalker, until, type SimEnv } from './test-sim-env';
import type { SimModel, Target } from './test-sim-model';
import { Op, pick, refreshItems, target, type SimCommand } from './test-sim-op';

async function settled(env: SimEnv, walkId: string): Promise<WalkInfo> {
  let w: WalkInfo | null = null;
  await until(
    `walk ${walkId} to stop`,
    async () => {
      w = await env.call<WalkInfo | null>('walks.get', { walkId });
      return w !== null && w.status !== 'running';
    },
    120_000,
  );
  return w as unknown as WalkInfo;
}

async function startWalk(m: SimModel, env: SimEnv, t: Target, maxPages: number, maxCredits: number | null): Promise<WalkInfo> {
  const w = await env.call<WalkInfo>('walks.start', {
    target: t,
    source: 'search',
    maxPages,
    ...(maxCredits !== null ? { maxCredits } : {}),
  });
  m.walks.set(w.walkId, { target: t, approved: maxCredits });
  return w;
}

function nthWalk(m: SimModel, i: number): [string, SimModel['walks'] extends Map<string, infer W> ? W : never] | undefined {
  const all = [...m.walks.entries()];
  return all.length === 0 ? undefined : all[i % all.length];
}

function walkOps(): Array<fc.Arbitrary<SimCommand>> {
  const start = fc
    .record({ t: target, pages: fc.integer({ min: 1, max: 4 }), maxCredits: fc.option(fc.integer({ min: 50, max: 3000 }), { nil: null }) })
    .map(
      (a) =>
        new Op('startWalk', a, async (m, env) => {
          const w = await startWalk(m, env, a.t, a.pages, a.maxCredits);
          await settled(env, w.walkId);
          await refreshItems(m, env);
        }),
    );
  const more = fc
    .record({ i: pick, pages: fc.integer({ min: 1, max: 3 }), maxCredits: fc.option(fc.integer({ min: 50, max: 3000 }), { nil: null }) })
    .map(
      (a) =>
        new Op(
          'fetchMore',
          { pages: a.pages, maxCredits: a.maxCredits },
          async (m, env) => {
            const [walkId, w] = nthWalk(m, a.i)!;
            const before = await env.call<WalkInfo | null>('walks.get', { walkId });
            if (!before || before.status === 'running') return;
            await env.call('walks.resume', { walkId, maxPages: a.pages, ...(a.maxCredits !== null ? { maxCredits: a.maxCredits } : {}) });
            w.approved = a.maxCredits === null ? null : before.creditsSpent + a.maxCredits;
            await settled(env, walkId);
            await refreshItems(m, env);
          },
          (m) => m.walks.size > 0,
        ),
    );
  const cancel = fc.record({ t: target }).map(
    (a) =>
      new Op('cancelWalk', a, async (m, env) => {
        const w = await startWalk(m, env, a.t, 8, null);
        await until(
          'a page or the end',
          async () => {
            const g = await env.call<WalkInfo | null>('walks.get', { walkId: w.walkId });
            return !g || g.status !== 'running' || g.pagesDone >= 1;
          },
          60_000,
        );
        await env.call('walks.cancel', { walkId: w.walkId });
        await settled(env, w.walkId);
        await refreshItems(m, env);
      }),
  );
  const call = fc.record({ t: target, fresh: fc.boolean() }).map(
    (a) =>
      new Op('apiCall', a, async (m, env) => {
        await env.attempt('api.call', { target: a.t, source: 'explorer', fresh: a.fresh });
        await refreshItems(m, env);
      }),
  );
  return [start, start, more, cancel, call];
}

function worldOps(): Array<fc.Arbitrary<SimCommand>> {
  const advance = fc.constantFrom(30, 600, 3_601, 21_601, 86_401, 3 * 86_400).map(
    (seconds) =>
      new Op('advance', { seconds }, async (_m, env) => {
        env.sb.admin.advance(seconds);
      }),
  );
  const names = SPEC_VARIANTS.map((v) => v.name);
  const variants = fc.subarray(names, { maxLength: 3 }).map(
    (list) =>
      new Op('variants', { list }, async (m, env) => {
        env.sb.admin.setVariants(list);
        m.variantLog.push({ at: env.sb.admin.now(), variants: [...list] });
      }),
  );
  const chaos = fc.constantFrom(0, 0.05, 0.2).map(
    (rate) =>
      new Op('chaos', { rate }, async (_m, env) => {
        // no slow answers: the attempt deadline is real time, a slow answer would only make the run slow
        env.sb.admin.setChaos({ rate429: rate / 4, rate500: rate / 4, rate503: rate / 4, rateDrop: rate / 4, rateSlow: 0 });
      }),
  );
  const fault = fc.record({ t: target, kind: fc.constantFrom('drop', 'truncate-charged', 'status500', 'status429') }).map(
    (a) =>
      new Op('fault', a, async (_m, env) => {
        const match = a.t.endpoint;
        if (a.kind === 'status500') env.sb.admin.queueFaults([{ kind: 'status', status: 500, type: 'INTERNAL_ERROR', match }]);
        else if (a.kind === 'status429')
          env.sb.admin.queueFaults([{ kind: 'status', status: 429, type: 'RATE_LIMITED', retryAfter: 3, match }]);
        else env.sb.admin.queueFaults([{ kind: a.kind, match }]);
      }),
  );
  const spender = fc.integer({ min: 1, max: 4 }).map(
    (n) =>
      new Op('otherSpender', { calls: n }, async (m, env) => {
        const from = env.sb.admin.now();
        for (let i = 0; i < n; i++)
          await directGet(env.sb, env.otherKey, 'thread_net/profile', { handle: `other${Math.floor(Math.random() * 1e9)}` });
        m.balanceMovedElsewhere = true;
        m.otherSpending.push([from, env.sb.admin.now()]);
      }),
  );
  // item 5: another spender on the account while one of Loupe's answers is lost
  const spendDuringLoss = fc.record({ t: target, calls: fc.integer({ min: 1, max: 3 }) }).map(
    (a) =>
      new Op('spendDuringLoss', a, async (m, env) => {
        env.sb.admin.queueFaults([{ kind: 'drop', match: a.t.endpoint }]);
        const from = env.sb.admin.now();
        const w = await startWalk(m, env, a.t, 2, null);
        await Promise.all(
          Array.from({ length: a.calls }, () =>
            directGet(env.sb, env.otherKey, 'thread_net/profile', { handle: `other${Math.floor(Math.random() * 1e9)}` }),
          ),
        );
        m.balanceMovedElsewhere = true;
        await settled(env, w.walkId);
        m.otherSpending.push([from, env.sb.admin.now()]);
        await refreshItems(m, env);
      }),
  );
  const topUp = fc.integer({ min: 100, max: 20_000 }).map(
    (n) =>
      new Op('topUp', { credits: n }, async (m, env) => {
        env.sb.admin.setBalance(env.sb.admin.balance() + n);
        // the analyst comes back to the app: the window's focus re-reads the balance
        await env.call<BalanceInfo>('credits.refresh');
        m.balanceMovedElsewhere = false;
      }),
  );
  const reopen = fc.constant(null).map(() => new Op('reopen', {}, async (_m, env) => env.reopen()));
  return [advance, advance, variants, chaos, fault, spender, spendDuringLoss, topUp, reopen];
}

/**
 * A second Loupe process walks; it is killed (SIGKILL) while a request is in flight after an
 * answer it was charged for was lost; then the analyst runs the same walk again (or resumes it).
 */
export function killOp(): fc.Arbitrary<SimCommand> {
  return fc.record({ t: target, resume: fc.boolean() }).map(
    (a) =>
      new Op('killMidWalk', a, async (m, env) => {
        const before = env.sb.admin.stats().scripted_faults.stall ?? 0;
        env.sb.admin.clearFaults();
        env.sb.admin.queueFaults([
          { kind: 'truncate-charged', match: a.t.endpoint },
          { kind: 'stall', match: a.t.endpoint },
        ]);
        const child = await spawnWalker(env, a.t, 2);
        let err = '';
        let out = '';
        child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
        child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        let gone = false;
        void exited.then(() => (gone = true));
        // killed mid-request — or, when the archive answered every page (no request to catch), once it settled
        await until(
          'the second process to be mid-request or done',
          () =>
            gone ||
            out.includes('"settled"') ||
            ((env.sb.admin.stats().scripted_faults.stall ?? 0) > before && env.sb.admin.stats().in_flight > 0),
          120_000,
        ).catch((e: Error) => {
          child.kill('SIGKILL');
          throw new Error(`${e.message}; child: ${err.slice(-500)}`);
        });
        if (gone && !out.includes('"settled"')) throw new Error(`the second process exited on its own: ${err.slice(-500)}`);
        child.kill('SIGKILL');
        await exited;
        env.sb.admin.clearFaults();
        for (const j of env.app.archive.pendingJournal()) m.deadPending.add(j.idempotencyKey).add(j.callId);
        const walks = await env.call<WalkInfo[]>('walks.list');
        const dead = walks.find((w) => w.source === 'cli' && !m.walks.has(w.walkId));
        if (dead) m.walks.set(dead.walkId, { target: a.t, approved: null });
        if (a.resume && dead) {
          await env.call('walks.resume', { walkId: dead.walkId, maxPages: 2 });
          await settled(env, dead.walkId);
        } else {
          const w = await startWalk(m, env, a.t, 2, null);
          await settled(env, w.walkId);
        }
        await refreshItems(m, env);
      }),
  );
}

export function spendOps(): Array<fc.Arbitrary<SimCommand>> {
  return [...walkOps(), ...worldOps()];
}
