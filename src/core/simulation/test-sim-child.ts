/**
 * The simulation's second process (not shipped): Loupe composed on the simulation's data folder
 * and sandbox, starting one walk through the contract, to be killed with SIGKILL mid-request.
 *   tsx test-sim-child.ts '{"dataDir":…,"url":…,"key":…,"target":…,"maxPages":3,"scale":600}'
 * Its clock is the sandbox's (read once from /__admin/clock, then scaled), as the parent's is.
 */
import { scaledClock } from '../api/clock';
import { createApp } from '../app';
import { dispatch } from '../bridge';
import { MemorySecretStore } from '../secrets';

const arg = JSON.parse(process.argv[2] ?? '{}') as {
  dataDir: string;
  url: string;
  key: string;
  target: { platform: string; endpoint: string; params: Record<string, string> };
  maxPages: number;
  scale: number;
};
const clock0 = (await (await fetch(`${arg.url}/__admin/clock`)).json()) as { now: number };
const real0 = Date.now();
const clock = scaledClock(() => clock0.now + (Date.now() - real0) * arg.scale, arg.scale);
const app = createApp({
  dataDir: arg.dataDir,
  secrets: new MemorySecretStore(),
  door: 'cli',
  clock,
  sandbox: async () => ({ url: arg.url, key: arg.key }),
});
await app.ready;
const r = await dispatch(app, 'walks.start', { target: arg.target, source: 'cli', maxPages: arg.maxPages });
process.stdout.write(`${JSON.stringify({ started: r })}\n`);
// the parent kills this process mid-request; if the walk needs no request (the archive held it) it says so
const walkId = r.ok ? (r.result as { walkId: string }).walkId : null;
for (;;) {
  const g = walkId ? await dispatch(app, 'walks.get', { walkId }) : null;
  const st = g && g.ok ? (g.result as { status: string } | null)?.status : 'failed';
  if (st !== 'running') {
    process.stdout.write(`${JSON.stringify({ settled: st })}\n`);
    break;
  }
  await new Promise((res) => setTimeout(res, 20));
}
setInterval(() => undefined, 1 << 30);
