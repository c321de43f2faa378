/**
 * `loupe dataset recheck | attrition` (issue 29): a dry run prices the re-check and spends nothing;
 * above the threshold it is refused without --yes (exit 5, nothing spent); with --yes the removed
 * posts of the sandbox's aging world are unavailable and the attrition CSV says so by network and
 * month, totalling the items held.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { openArchive } from '../core/archive';
import { SettingsFile } from '../core/secrets';
import { runCaptured } from './run-captured';

let sb: SandboxHandle;
let h: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 3, epoch: Date.UTC(2026, 2, 1), balance: 1_000_000, freeCalls: 0, timeScale: 1 });
  h = mkdtempSync(join(tmpdir(), 'loupe-cli-dataset-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(h, { recursive: true, force: true });
});

describe('loupe dataset recheck and attrition', () => {
  it('prices first, asks, marks the removed posts, reports attrition by network and month', async () => {
    const env = { LOUPE_HOME: h, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    for (const k of [0, 1])
      expect(
        (await runCaptured(['call', 'photo_net/profile/posts', '-p', `handle=aging.check${k}`, '--yes', '--out', '-'], env)).code,
      ).toBe(0);
    const a = openArchive(join(h, 'loupe.db'));
    a.saveResultSet('Study', { platforms: ['photo_net'] });
    const held = a.count({ platforms: ['photo_net'] });
    a.close();
    sb.admin.advance(90 * 86_400);
    const n0 = sb.admin.charges().length;

    const dry = await runCaptured(['dataset', 'recheck', 'Study', '--dry-run', '--json'], env);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.err).toContain(`${held} item(s); ${held} to read again; 0 cannot be re-checked.`);
    expect(JSON.parse(dry.out).plan.inputs).toBe(held);
    // above "ask above" (set to 10 credits) and no terminal: refused, exit 5, nothing spent
    new SettingsFile(join(h, 'settings.json')).update((d) => void (d.app.askAboveCredits = 10));
    const refused = await runCaptured(['dataset', 'recheck', 'Study'], env);
    expect(refused.code, refused.err).toBe(5);
    expect(refused.err).toMatch(/nothing was spent/);
    expect(sb.admin.charges().length).toBe(n0);

    const run = await runCaptured(['dataset', 'recheck', 'Study', '--yes', '--json'], env);
    expect(run.code, run.err).toBe(0);
    const r = JSON.parse(run.out);
    expect(r.found + r.missing).toBe(held);
    expect(r.missing).toBeGreaterThan(0);
    expect(run.err).toContain(`This re-check: ${r.found} found, ${r.missing} not found (unavailable), 0 not read.`);

    const csv = await runCaptured(['dataset', 'attrition', 'Study', '--no-bom'], env);
    expect(csv.code, csv.err).toBe(0);
    const lines = csv.out.trim().replace(/"/g, '').split(/\r?\n/);
    expect(lines[0]).toBe('platform,month,available,unavailable,not_rechecked');
    const sum = lines
      .slice(1)
      .map((l) => l.split(','))
      .reduce((s, c) => [s[0] + +c[2], s[1] + +c[3], s[2] + +c[4]], [0, 0, 0]);
    expect(sum).toEqual([r.found, r.missing, 0]);
    expect(lines.slice(1).every((l) => /^photo_net,\d{4}-\d{2},/.test(l))).toBe(true);
    // the JSON of the same report: one object a row, named as the CSV's columns, the counts as numbers
    const json = await runCaptured(['dataset', 'attrition', 'Study', '--format', 'json'], env);
    expect(json.code, json.err).toBe(0);
    const head = lines[0].split(',');
    expect(JSON.parse(json.out)).toEqual(
      lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [head[i], i < 2 ? v : Number(v)]))),
    );

    // a bundle: exported, verified, tampered (named, exit 2), imported into another archive (nothing paid)
    const out = join(h, 'bundle');
    const ex = await runCaptured(['dataset', 'export', 'Study', '--out', out, '--json'], env);
    expect(ex.code, ex.err).toBe(0);
    const summary = JSON.parse(ex.out);
    expect(summary.items).toBe(held);
    const ok = await runCaptured(['dataset', 'verify', out, '--root', summary.root, '--archive'], env);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.err).toContain(`Root hash: ${summary.root}`);
    // the same as one .zip: the same root, verified as a zip
    const zip = join(h, 'bundle.zip');
    const ez = await runCaptured(['dataset', 'export', 'Study', '--out', zip, '--json'], env);
    expect(ez.code, ez.err).toBe(0);
    const zv = await runCaptured(['dataset', 'verify', zip, '--archive', '--json'], env);
    expect(zv.code, zv.err).toBe(0);
    expect(JSON.parse(zv.out)).toMatchObject({ ok: true, items: held });
    const h2 = mkdtempSync(join(tmpdir(), 'loupe-cli-dataset2-'));
    const env2 = { ...env, LOUPE_HOME: h2 };
    const charges = sb.admin.charges().length;
    const im = await runCaptured(['dataset', 'import', out, '--json'], env2);
    expect(im.code, im.err).toBe(0);
    expect(JSON.parse(im.out).items.after).toBe(held);
    expect(sb.admin.charges().length).toBe(charges);
    const b = openArchive(join(h2, 'loupe.db'));
    expect(b.count({ platforms: ['photo_net'] })).toBe(held);
    b.close();
    rmSync(h2, { recursive: true, force: true });
    writeFileSync(
      join(out, 'items.history.csv'),
      readFileSync(join(out, 'items.history.csv'), 'utf8') + '"photo_net","post","x","2026-01-01T00:00:00.000Z",,,,,\r\n',
    );
    const bad = await runCaptured(['dataset', 'verify', out], env);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("items.history.csv: its SHA-256 differs from the manifest's: changed.");
    // dehydrated: keys and calls, with today's price of re-collecting them
    const dh = await runCaptured(['dataset', 'export', 'Study', '--out', join(h, 'dry'), '--dehydrated', '--json'], env);
    expect(dh.code, dh.err).toBe(0);
    const q = JSON.parse(dh.out).rehydrationQuote;
    expect(q.credits_max).toBeGreaterThanOrEqual(q.credits_min);
    expect(q.requests).toBeGreaterThan(0);
    expect(sb.admin.charges().length).toBe(charges);
  });
});

describe('a sandbox whose clock is ahead of this computer’s, run 60× (the README’s)', () => {
  it('re-check marks are on the service’s clock, and the bundle written next verifies with its archive', async () => {
    const DAY = 86_400_000;
    const ahead = await startSandbox({ port: 0, seed: 3, epoch: Date.now() + 200 * DAY, balance: 1_000_000, freeCalls: 0, timeScale: 60 });
    const home = mkdtempSync(join(tmpdir(), 'loupe-cli-dataset-ahead-'));
    try {
      const env = { LOUPE_HOME: home, LOUPE_BASE_URL: ahead.url, LOUPE_API_KEY: ahead.key };
      const got = await runCaptured(['call', 'photo_net/profile/posts', '-p', 'handle=aging.check0', '--yes', '--out', '-'], env);
      expect(got.code, got.err).toBe(0);
      ahead.admin.advance(90 * 86_400);
      const t0 = ahead.admin.now();
      const run = await runCaptured(['dataset', 'recheck', '--platform', 'photo_net', '--yes', '--json'], env);
      const t1 = ahead.admin.now();
      expect(run.code, run.err).toBe(0);
      // every mark within the re-check's span on the sandbox's clock (`Date`: whole seconds), none
      // on this computer's (200 days behind): the process reads the service's clock first
      const a = openArchive(join(home, 'loupe.db'));
      const items = a.listQuery({ platforms: ['photo_net'], limit: 1000 }).rows.map((r) => a.getItem(r.platform, r.kind, r.id)!);
      a.close();
      expect(items.length).toBeGreaterThan(0);
      expect(items.filter((it) => !(it.checkedAt !== null && it.checkedAt >= t0 - 2_000 && it.checkedAt <= t1 + 2_000))).toEqual([]);
      const out = join(home, 'bundle');
      expect((await runCaptured(['dataset', 'export', '--platform', 'photo_net', '--out', out], env)).code).toBe(0);
      const v = await runCaptured(['dataset', 'verify', out, '--archive'], env);
      expect(v.code, v.err).toBe(0);
    } finally {
      await ahead.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('loupe dataset export --out -', () => {
  it('is a usage error (a bundle is a folder or a .zip), exit 2, no folder named "-" written', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loupe-cli-dataset-dash-'));
    const dash = resolve('-');
    try {
      const r = await runCaptured(['dataset', 'export', '--out', '-'], { LOUPE_HOME: home });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(
        /^loupe: option '--out <folder\|file\.zip>' argument '-' is invalid\. A bundle is a folder or a \.zip, not a stream/,
      );
      expect(existsSync(dash)).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
      if (existsSync(dash) && statSync(dash).isDirectory()) rmSync(dash, { recursive: true, force: true });
    }
  });
});
