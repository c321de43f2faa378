/**
 * `npm run sandbox -- --port 0 --seed 1 --balance 10000 --time-scale 60 --latency-ms 0 --chaos 0.2`
 *   `--variant NAME` (repeatable) serves another legal reading of the spec (SPEC_VARIANTS).
 * Prints exactly one JSON line to stdout: {"url":"http://127.0.0.1:<port>","key":"<demo key>"}.
 * Everything else goes to stderr. Stops cleanly on SIGINT / SIGTERM.
 */
import { Command, InvalidArgumentError } from 'commander';
import { parseChaos, parseVariants, SPEC_VARIANTS, startSandbox } from './index';

function num(name: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new InvalidArgumentError(`${name} must be a number >= ${min}`);
    return n;
  };
}

async function main(): Promise<void> {
  const program = new Command()
    .name('sandbox')
    .description('Local emulator of the Social Data Read API')
    .option('--port <n>', 'port (0 = a free port)', num('port', 0), 0)
    .option('--seed <n>', 'world seed', num('seed', 0), 1)
    .option('--balance <n>', 'starting credit balance', num('balance', 0), 10_000)
    .option('--time-scale <x>', 'sandbox seconds per real second', num('time-scale', 1e-6), 1)
    .option('--latency-ms <n>', 'added latency per data response (ms)', num('latency-ms', 0), 0)
    .option('--chaos <spec>', 'fault rate (e.g. 0.2) or 429=0.05,500=0.05,503=0.05,drop=0.05,slow=0.02')
    .option('--free-calls <n>', 'introductory free calls', num('free-calls', 0), 10)
    .option('--key-prefix <p>', 'API key prefix', 'sdr')
    .option('--epoch <iso>', 'sandbox start time (ISO 8601; default: now)')
    .option(
      '--variant <name>',
      `serve another legal reading of the spec (repeatable): ${SPEC_VARIANTS.map((v) => v.name).join(', ')}`,
      (v: string, prev: string[]) => {
        try {
          parseVariants([v]);
        } catch (e) {
          throw new InvalidArgumentError(e instanceof Error ? e.message : String(e));
        }
        return [...prev, v];
      },
      [] as string[],
    )
    .configureOutput({ writeOut: (s) => process.stderr.write(s), writeErr: (s) => process.stderr.write(s) })
    .parse(process.argv);
  const o = program.opts<{
    port: number;
    seed: number;
    balance: number;
    timeScale: number;
    latencyMs: number;
    chaos?: string;
    freeCalls: number;
    keyPrefix: string;
    epoch?: string;
    variant: string[];
  }>();
  let epoch: number | undefined;
  if (o.epoch !== undefined) {
    epoch = Date.parse(o.epoch);
    if (Number.isNaN(epoch)) throw new Error('--epoch must be an ISO 8601 date or timestamp');
  }
  const sb = await startSandbox({
    port: o.port,
    seed: o.seed,
    balance: Math.floor(o.balance),
    timeScale: o.timeScale,
    latencyMs: o.latencyMs,
    chaos: o.chaos !== undefined ? parseChaos(o.chaos) : undefined,
    freeCalls: Math.floor(o.freeCalls),
    keyPrefix: o.keyPrefix,
    epoch,
    variants: o.variant,
  });
  process.stdout.write(`${JSON.stringify({ url: sb.url, key: sb.key })}\n`);
  process.stderr.write(
    `[sandbox] listening on ${sb.url} (seed ${o.seed}, time scale ${o.timeScale}, balance ${o.balance}${o.variant.length > 0 ? `, variants ${o.variant.join(',')}` : ''})\n`,
  );
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[sandbox] ${sig}: stopping\n`);
    sb.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e: unknown) => {
  process.stderr.write(`[sandbox] ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
