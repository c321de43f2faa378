/**
 * The second process of the throughput bench's shared-key case: what `loupe watch run` from cron
 * does beside the desktop app — a watchlist run through its own request core and archive, pacing
 * the same key through the same `pacing.db`. Its clock mirrors the sandbox's, like the parent's.
 *
 * argv: <sandbox url> <key> <time scale> <data dir> <watches> <run seconds (sandbox)>
 * Prints one JSON line: { requests, runs }.
 */
import { join } from 'node:path';
import { createApiCore } from '../src/core/api/index';
import { openArchive } from '../src/core/archive/index';
import { createWatchService } from '../src/core/watch/index';
import { mirrorClock } from './remote-sandbox';

const [url, key, scaleArg, dir, watchesArg, secondsArg] = process.argv.slice(2);
const timeScale = Number(scaleArg);
const { clock } = await mirrorClock(url, timeScale);
const archive = openArchive(join(dir, 'cron-archive.db'), { clock: () => clock.now() });
const api = createApiCore({
  baseUrl: url,
  getKeys: () => [{ name: 'shared', key }],
  store: archive,
  clock,
  limits: { requests: 60, windowSeconds: 60, maxInFlight: 10 },
  paceFile: join(dir, 'pacing.db'),
});
const watch = createWatchService({ api, archive, clock });
const watches = Array.from({ length: Number(watchesArg) }, (_, i) => ({
  platform: 'photo_net',
  endpoint: 'profile/posts',
  params: { handle: `cron.account${i}` },
}));
const l = await watch.create({ name: 'cron', watches });
let requests = 0;
api.events.on('attempt', () => requests++);
const end = clock.now() + Number(secondsArg) * 1000;
let runs = 0;
// refresh after refresh until the time is up (a cron job that keeps up with many watches)
while (clock.now() < end) {
  const ac = new AbortController();
  const left = end - clock.now();
  const timer = setTimeout(() => ac.abort(), Math.max(1, left / timeScale));
  const r = watch.run(l.id, { approved: true });
  await Promise.race([r, new Promise((res) => ac.signal.addEventListener('abort', res, { once: true }))]);
  clearTimeout(timer);
  runs++;
  if (ac.signal.aborted) break;
}
await watch.close(); // cancels a run still going
process.stdout.write(JSON.stringify({ requests, runs }) + '\n');
await api.close();
archive.close();
process.exit(0);
