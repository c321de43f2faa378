/**
 * The collect bench's run in a process of its own, so it can be killed with SIGKILL mid-way (as a
 * crash, a reboot or `kill -9` would): the plan's run through its own request core (the key pool,
 * the shared `pacing.db`) and the archive file, on a clock mirroring the sandbox's.
 *
 * argv: <sandbox url> <keys JSON [{name,key}]> <time scale> <data dir> <plan name>
 * Prints one JSON line, the run's final status, when the run ends.
 */
import { join } from 'node:path';
import { createApiCore, type PoolKey } from '../src/core/api/index';
import { openArchive } from '../src/core/archive/index';
import { createCollectService } from '../src/core/collect/index';
import { mirrorClock } from './remote-sandbox';

const [url, keysJson, scaleArg, dir, planName] = process.argv.slice(2);
const timeScale = Number(scaleArg);
const keys = JSON.parse(keysJson) as PoolKey[];
const { clock } = await mirrorClock(url, timeScale);
const archive = openArchive(join(dir, 'loupe.db'), { clock: () => clock.now() });
const api = createApiCore({
  baseUrl: url,
  getKeys: () => keys,
  store: archive,
  clock,
  limits: { requests: 60, windowSeconds: 60, maxInFlight: 10 },
  paceFile: join(dir, 'pacing.db'),
  maxRetries: 8,
});
const collect = createCollectService({ api: async () => api, archive, clock, askAboveCredits: () => null });
const st = await collect.run(planName, { approved: true });
process.stdout.write(JSON.stringify(st) + '\n');
await collect.close();
await api.close();
archive.close();
process.exit(0);
