/** `--out FILE` is written under a temporary name; what a killed run left for FILE goes at the next run (line-sink.ts). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { HOST_TAG } from '../core/partial-files';
import type { Io } from './io';
import { LineSink } from './line-sink';

const root = mkdtempSync(join(tmpdir(), 'loupe-line-sink-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const io = (): Io => ({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {} });
/** the pid of a process that has ended (as `kill -9` leaves one) */
const deadPid = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
const hex = (n: number) => n.toString(16).padStart(12, '0');

describe('loupe call --out FILE', () => {
  it('the next run to FILE removes what a killed run left; a live run’s temporary file stays', async () => {
    const dir = mkdtempSync(join(root, 'out-'));
    const dead = deadPid();
    const left = `.items.jsonl.${HOST_TAG}-${dead}-${hex(1)}.partial`;
    const live = `.items.jsonl.${HOST_TAG}-${process.ppid}-${hex(2)}.partial`;
    writeFileSync(join(dir, left), '{"half":');
    writeFileSync(join(dir, live), '{"another run":');
    const sink = await LineSink.open(io(), join(dir, 'items.jsonl'));
    // while it writes: its own temporary name carries this process id
    expect(readdirSync(dir).filter((f) => f.includes(`-${process.pid}-`))).toHaveLength(1);
    sink.write({ id: '1' });
    sink.write({ id: '2' });
    await sink.finish(true);
    expect(readdirSync(dir).sort()).toEqual([live, 'items.jsonl'].sort());
    expect(readFileSync(join(dir, 'items.jsonl'), 'utf8')).toBe('{"id":"1"}\n{"id":"2"}\n');
  });

  it('a run that fails leaves nothing behind', async () => {
    const dir = mkdtempSync(join(root, 'fail-'));
    const sink = await LineSink.open(io(), join(dir, 'items.jsonl'));
    await sink.finish(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
