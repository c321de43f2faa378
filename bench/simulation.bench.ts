/**
 * The long run of issue 24's simulation (src/core/simulation, docs/simulation.md): random analyst
 * sessions against the sandbox, every spec variant served (each session starts with a random
 * subset and switches during the session), a second process killed mid-walk now and then, every
 * invariant checked after every step. `npm run bench -- --only simulation` runs at least 20,000
 * steps (`--quick`: 1,000; LOUPE_SIM_BENCH_STEPS overrides) and reports the steps, the operations
 * covered, the invariant checks made and what could not be told exactly. A failure stops the run
 * with fast-check's seed, path and shrunk sequence (replay them with the unit test's variables).
 */
import { SPEC_VARIANTS } from '../src/sandbox/index';
import { runSimulation } from '../src/core/simulation/test-sim-run';
import type { BenchContext, Result } from './types';

export const name = 'simulation';

/** actions per session: long enough for lists to be edited, run, advanced past windows, killed */
const STEPS_PER_SESSION = 80;

export async function run(ctx: BenchContext): Promise<Result[]> {
  const target = Number(process.env.LOUPE_SIM_BENCH_STEPS ?? (ctx.quick ? 1_000 : 20_000));
  const t0 = Date.now();
  const total = {
    steps: 0,
    sessions: 0,
    checks: 0,
    ops: new Map<string, number>(),
    variants: new Set<string>(),
    unknowable: new Map<string, number>(),
  };
  // rounds of sessions until the steps are made: a round with kills, so a few processes die mid-walk
  for (let round = 0; total.steps < target; round++) {
    const r = await runSimulation({ runs: 10, steps: STEPS_PER_SESSION, kills: round % 3 === 0 }).catch((e: unknown) => {
      // fast-check keeps the broken invariant's words in `cause`: the report shows them
      const cause = e instanceof Error ? e.cause : undefined;
      throw new Error(`${e instanceof Error ? e.message : String(e)}${cause instanceof Error ? `\n${cause.message}` : ''}`);
    });
    total.steps += r.steps;
    total.sessions += r.sessions;
    for (const n of Object.values(r.checks)) total.checks += n;
    for (const [k, v] of Object.entries(r.ops)) total.ops.set(k, (total.ops.get(k) ?? 0) + v);
    for (const [k, v] of Object.entries(r.unknowable)) total.unknowable.set(k, (total.unknowable.get(k) ?? 0) + v);
    for (const v of r.variantsSeen) total.variants.add(v);
    ctx.log(
      `simulation: ${total.steps.toLocaleString('en-US')} of ${target.toLocaleString('en-US')} steps, ${total.sessions} sessions, no invariant broken (${Math.round((Date.now() - t0) / 1000)} s)`,
    );
  }
  const minutes = (Date.now() - t0) / 60_000;
  const allVariants = SPEC_VARIANTS.length;
  const ops = [...total.ops.entries()].sort((a, b) => b[1] - a[1]);
  return [
    {
      metric: 'steps without an invariant broken',
      value: total.steps,
      unit: 'steps',
      target: `>= ${target.toLocaleString('en-US')}`,
      ok: total.steps >= target,
      note: `${total.sessions} sessions in ${minutes.toFixed(1)} min`,
    },
    { metric: 'operations covered', value: ops.length, unit: 'kinds', note: ops.map(([k, v]) => `${k} ${v}`).join(', ') },
    { metric: 'invariant checks made', value: total.checks, unit: 'checks' },
    {
      metric: 'spec variants served',
      value: total.variants.size,
      unit: `of ${allVariants}`,
      target: `= ${allVariants}`,
      ok: total.variants.size === allVariants,
    },
    {
      metric: 'not told exactly (reported, not failed)',
      value: [...total.unknowable.values()].reduce((a, b) => a + b, 0),
      unit: 'cases',
      note: [...total.unknowable.entries()].map(([k, v]) => `${k}: ${v}`).join('; ') || 'none',
    },
  ];
}
