import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const dirs: string[] = [];
afterEach(() => {
  delete process.env.LOUPE_EXPORT_TIMELINE;
  vi.resetModules();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('export timeline (LOUPE_EXPORT_TIMELINE)', () => {
  it('writes the origin, then each mark with its time and the thread CPU, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loupe-timeline-'));
    dirs.push(dir);
    const file = join(dir, 't');
    process.env.LOUPE_EXPORT_TIMELINE = file;
    vi.resetModules();
    const { mark } = await import('./timeline');
    const before = performance.timeOrigin + performance.now();
    mark('walk');
    let x = 0;
    for (let i = 0; i < 1e6; i++) x += Math.sqrt(i); // some CPU between the marks
    expect(x).toBeGreaterThan(0);
    mark('got 0');
    const after = performance.timeOrigin + performance.now();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    expect(lines.map((l) => l.slice(3).join(' '))).toEqual(['origin', 'walk', 'got 0']);
    expect(Number(lines[0][0])).toBeCloseTo(performance.timeOrigin, 2);
    const [walk, got] = [lines[1], lines[2]].map((l) => ({ ms: Number(l[0]), cpu: Number(l[2]) }));
    expect(walk.ms).toBeGreaterThanOrEqual(before - 0.01);
    expect(got.ms).toBeGreaterThanOrEqual(walk.ms);
    expect(got.ms).toBeLessThanOrEqual(after + 0.01);
    if (process.platform === 'linux') expect(got.cpu).toBeGreaterThan(walk.cpu);
  });
});
