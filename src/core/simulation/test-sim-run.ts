/**
 * Analysts simulated against the service (issue 24, docs/simulation.md): fast-check generates
 * sessions of analyst actions (test-sim-config.ts, test-sim-spend.ts), runs each against a fresh
 * sandbox and app under a random set of spec variants, checks every invariant after every step
 * (test-sim-check.ts), and on a failure prints its seed and a shrunk sequence that replays it
 * (`runSimulation({ seed, path })`). The short run is part of `npm test`; the long run is
 * `npm run bench -- --only simulation`. Not shipped.
 */
import fc from 'fast-check';
import { SPEC_VARIANTS } from '../../sandbox';
import { annotationOps, configOps } from './test-sim-config';
import { startSimEnv } from './test-sim-env';
import { count, newModel, type SimStats } from './test-sim-model';
import type { SimCommand } from './test-sim-op';
import { killOp, spendOps } from './test-sim-spend';

export interface SimOptions {
  /** sessions (each a fresh sandbox and data folder) */
  runs: number;
  /** actions per session, at most */
  steps: number;
  /** include a second process killed mid-walk (slow: it starts a process) */
  kills?: boolean;
  /** replay: the seed and path fast-check printed */
  seed?: number;
  path?: string;
  /** the commands' own replay path (printed as `replayPath="…"` beside the counterexample) */
  replayPath?: string;
  /** the spec variants each session starts with; default: a random subset of up to three */
  variants?: string[];
  /** count violations by kind instead of failing (triage while fixes land) */
  survey?: boolean;
  /** the account's introductory free calls; default: none in two sessions of three, three in the third */
  freeCalls?: number;
  /** stop after this much real time (ms), reporting what ran */
  timeLimitMs?: number;
}

export interface SimReport extends SimStats {
  sessions: number;
  variantsSeen: string[];
}

export function simulationOps(kills: boolean): Array<fc.Arbitrary<SimCommand>> {
  // a kill three times as likely as another op: a short session should see one
  return [...configOps(), ...annotationOps(), ...spendOps(), ...(kills ? [killOp(), killOp(), killOp()] : [])];
}

export async function runSimulation(o: SimOptions): Promise<SimReport> {
  const report: SimReport = { steps: 0, ops: {}, opMs: {}, checks: {}, unknowable: {}, sessions: 0, variantsSeen: [] };
  const seen = new Set<string>();
  const names = SPEC_VARIANTS.map((v) => v.name);
  const variantsArb = o.variants ? fc.constant(o.variants) : fc.subarray(names, { maxLength: 3 });
  const freeCallsArb = o.freeCalls !== undefined ? fc.constant(o.freeCalls) : fc.constantFrom(0, 0, 3);
  const prop = fc.asyncProperty(
    fc.integer({ min: 1, max: 1_000_000 }),
    variantsArb,
    freeCallsArb,
    fc.commands(simulationOps(o.kills ?? false), {
      maxCommands: o.steps,
      size: 'max',
      ...(o.replayPath ? { replayPath: o.replayPath } : {}),
    }),
    async (seed, variants, freeCalls, cmds) => {
      const env = await startSimEnv({ seed, variants, freeCalls });
      const model = newModel(variants, env.sb.admin.now());
      if (o.survey) model.stats.survey = report.survey ??= {};
      try {
        await fc.asyncModelRun(() => ({ model, real: env }), cmds);
      } finally {
        report.sessions++;
        report.steps += model.stats.steps;
        for (const [k, v] of Object.entries(model.stats.ops)) count(report.ops, k, v);
        for (const [k, v] of Object.entries(model.stats.checks)) count(report.checks, k, v);
        for (const [k, v] of Object.entries(model.stats.opMs)) count(report.opMs, k, v);
        for (const [k, v] of Object.entries(model.stats.unknowable)) count(report.unknowable, k, v);
        for (const l of model.variantLog) for (const v of l.variants) seen.add(v);
        await env.close();
      }
    },
  );
  await fc.assert(prop, {
    numRuns: o.runs,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.path !== undefined ? { path: o.path } : {}),
    ...(o.timeLimitMs !== undefined ? { interruptAfterTimeLimit: o.timeLimitMs } : {}),
    endOnFailure: false,
    verbose: 1,
  });
  report.variantsSeen = [...seen].sort();
  return report;
}
