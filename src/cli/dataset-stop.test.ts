/**
 * `loupe dataset export` stopped by Ctrl-C (SIGINT) or SIGTERM (docs/datasets.md "Bundles",
 * docs/cli.md "Stopping a command"): the built `loupe` in a child process is signalled once the
 * bundle is being written (its temporary folder holds items.csv: a state, not a time). It must
 * stop through its cancel path, say so in one line, exit 130 / 143, and leave nothing — no
 * half-written bundle under its name, no temporary file. Before, the command had no stop path: it
 * died at once, leaving a half-written folder at --out.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildArchiveFile } from '../core/archive/test-fixtures';
import { archivePath } from '../core/paths';

const BIN = resolve(__dirname, '../../bin/loupe.js');
let home: string;
let work: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'loupe-ds-stop-'));
  work = mkdtempSync(join(tmpdir(), 'loupe-ds-stop-out-'));
  buildArchiveFile(archivePath(home), 3_000);
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

async function until(f: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2400; i++) {
    if (f()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Runs the export into `dir`; with a signal, sends it once the bundle's temporary folder holds items.csv. */
async function exportInto(dir: string, out: string, signal?: NodeJS.Signals) {
  const child = spawn(process.execPath, [BIN, 'dataset', 'export', '--out', join(dir, out)], {
    env: { PATH: process.env.PATH, LOUPE_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += String(d)));
  const ended = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
  let done = false;
  void ended.then(() => (done = true));
  if (signal) {
    const writing = () =>
      readdirSync(dir).some((n) => n.startsWith(`.${out}.`) && n.endsWith('.parts') && existsSync(join(dir, n, 'items.csv')));
    await until(() => writing() || done, 'the bundle being written');
    expect(done, `the export ended before it was signalled: ${err}`).toBe(false);
    child.kill(signal);
  }
  return { code: await ended, err };
}

describe.runIf(existsSync(resolve(__dirname, '../../out/cli/bin.js')))('loupe dataset export stopped by a signal', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    for (const out of ['bundle', 'bundle.zip'])
      it(`${signal} while ${out} is written: one line, exit ${code}, nothing left`, async () => {
        const dir = join(work, `${signal}-${out}`);
        mkdirSync(dir);
        const r = await exportInto(dir, out, signal);
        expect(r.code, r.err).toBe(code);
        expect(r.err).toContain(`Stopped (${signal}): the bundle was not written; nothing of it was kept at ${join(dir, out)}.`);
        expect(readdirSync(dir)).toEqual([]); // no bundle under its name, no temporary folder or .partial file
      }, 60_000);

  it('without a signal the bundle is there under its name, and nothing else', async () => {
    const dir = join(work, 'whole');
    mkdirSync(dir);
    const r = await exportInto(dir, 'bundle.zip');
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(dir)).toEqual(['bundle.zip']);
  }, 60_000);
});
