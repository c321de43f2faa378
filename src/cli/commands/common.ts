/** What the command files share: flag parsers, the terminal's question, the catalogue lookup, a walk's last words. */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import type { CatalogueEndpoint } from '../../shared/api-types';
import type { WalkOutcome } from '../../shared/contract';
import { visible } from '../../shared/visible';
import { UsageError, type CliContext } from '../context';
import type { Io } from '../io';
import type { LineSink } from '../line-sink';
import { progress, rawOf } from '../terminal';

export const fmt = (n: number): string => n.toLocaleString('en-US');

export function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

export function intArg(name: string): (v: string) => number {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} takes a whole number, not "${v}".`);
    return n;
  };
}

/** A flag's whole number from `min` to `max`, else a usage error naming the flag. */
export function intBetween(name: string, min: number, max: number): (v: string) => number {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} takes a whole number from ${min} to ${max}, not "${v}".`);
    return n;
  };
}

export function priceText(min: number, max: number): string {
  return min === max ? `${fmt(min)} credits` : `${fmt(min)}–${fmt(max)} credits`;
}

export async function confirm(io: Io, question: string): Promise<boolean> {
  if (!io.stdin.isTTY || !io.stderr.isTTY) return false;
  // readline draws on the terminal itself (raw); the question is shown through visible()
  const rl = createInterface({ input: io.stdin, output: rawOf(io.stderr) });
  try {
    const a = await rl.question(`${visible(question)} [y/N] `);
    return /^y(es)?$/i.test(a.trim());
  } finally {
    rl.close();
  }
}

/** Standard input, whole, as text. */
async function stdinText(io: Io): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks).toString('utf8');
}

export async function readStdin(io: Io): Promise<string> {
  return (await stdinText(io)).trim();
}

/** A list the person names: a file, or standard input for `-`; a file that cannot be read is a usage error saying why. */
export async function readListFile(io: Io, file: string): Promise<string> {
  if (file === '-') return stdinText(io);
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      `Cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (e as Error).message}.`,
    );
  }
}

/** What a command group that may spend is registered with: the terminal's question before a plan above the threshold. */
export interface AsksFirst {
  confirm: (q: string) => Promise<boolean>;
}

/** The catalogue's endpoint for a target (the contract's `catalogue.endpoint`), else a usage error saying where to look. */
export async function loadEndpoint(c: CliContext, platform: string, endpoint: string): Promise<CatalogueEndpoint> {
  const ep = await c.call('catalogue.endpoint', { platform, endpoint });
  if (!ep) {
    const known = (await c.call('catalogue.get', {})).endpoints.some((e) => e.platform === platform);
    throw new UsageError(
      known
        ? `${platform} has no endpoint "${endpoint}" in the catalogue; see: loupe endpoints --platform ${platform}`
        : `"${platform}" is not a network in the catalogue; see: loupe endpoints`,
    );
  }
  return ep;
}

/** The one line a walk stopped by its output says (docs/cli.md "Pipes"). */
export function outputStopped(sink: LineSink, r: WalkOutcome): string {
  const what = `${fmt(sink.lines)} item(s) written, ${r.pagesDone} page(s) and ${fmt(r.creditsSpent)} credits in all, every charge recorded`;
  return r.status === 'done'
    ? `the walk had ended (${what}).`
    : `the walk stopped before its next request (${what}); continue with: loupe resume ${r.walkId}`;
}

/** The one line a walk stopped by Ctrl-C / SIGTERM says (./interrupt.ts). */
export function interruptedWalk(by: string, r: WalkOutcome): string {
  return `Stopped (${by}) before the next request: ${r.pagesDone} page(s), ${fmt(r.itemsSeen)} items and ${fmt(r.creditsSpent)} credits in all, every charge recorded; continue with: loupe resume ${r.walkId}`;
}

export function progressLine(io: Io, text: string): void {
  progress(io.stderr, text);
}
