/**
 * `npm run serve -- [--port N] [--data-dir DIR] [--base-url URL]`
 * Starts the web host on 127.0.0.1 and prints ONE line on stdout: the URL with the session token.
 * Environment: every variable of the settings table (src/shared/settings.ts) — LOUPE_HOME (data
 * folder), LOUPE_BASE_URL (service), LOUPE_API_KEY (key for this run, never stored),
 * LOUPE_RATE_LIMIT, LOUPE_MAX_IN_FLIGHT, LOUPE_SANDBOX_SEED. Everything else (notices, and the
 * progress of an older archive's update at start) goes to stderr.
 */
import { Command, InvalidArgumentError } from 'commander';
import { migrationPrinter } from '../core/archive/prepare';
import { doorSetup } from '../core/compose';
import { startHost } from './index';

function portArg(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port number 0-65535');
  return n;
}

const program = new Command()
  .name('loupe-serve')
  .description('Serve Loupe in your browser on 127.0.0.1 (the same app as the desktop window).')
  .option('-p, --port <n>', 'port (0 = any free port)', portArg, 0)
  .option('--data-dir <dir>', 'data folder (default: LOUPE_HOME, else the user-data folder)')
  .option('--base-url <url>', 'service base URL (default: LOUPE_BASE_URL, else settings, else the built-in sandbox)')
  .parse();

const o = program.opts<{ port: number; dataDir?: string; baseUrl?: string }>();

try {
  // the flags, else the environment through the settings table (src/shared/settings.ts)
  const setup = doorSetup({ dataDir: o.dataDir, baseUrl: o.baseUrl });
  // an older archive is migrated before the host starts: progress lines on stderr
  const progress = migrationPrinter(process.stderr);
  const host = await startHost({
    port: o.port,
    dataDir: setup.dataDir,
    baseUrl: setup.baseUrl,
    envKey: setup.envKey,
    environment: setup.env,
    onArchiveProgress: progress.onProgress,
  }).finally(() => progress.end());
  process.stdout.write(`${host.url}\n`);
  process.stderr.write(`Loupe is serving on ${host.origin} (data: ${host.dataDir}). Open the URL above; Ctrl+C stops it.\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    host.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (e) {
  const msg = e instanceof Error ? e.message : String(e);
  process.stderr.write(`loupe serve: ${msg.split('\n')[0]}\n`);
  process.exit((e as { code?: string }).code === 'EADDRINUSE' ? 3 : 1);
}
