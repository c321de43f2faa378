/**
 * Issue 14 #4: label overrides reach the export's label columns (the effective value, as the
 * library filters read it), and an override must be a value the service could have given.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../bridge';
import { flattenForCsv } from './columns';
import type { ExportRow } from '../ports';
import { labelValueProblem } from '../../shared/labels';
import { startTestApp, type TestApp } from '../test-app';

describe('label columns honour overrides', () => {
  it('flattenForCsv: the override wins in labels.<family>.<field>; other fields keep the API value', () => {
    const row: ExportRow = {
      platform: 'photo_net',
      kind: 'post',
      id: '1',
      firstSeenAt: 0,
      lastSeenAt: 0,
      tags: [],
      note: null,
      record: { id: '1', computed: { labels: { intent: { label: 'promoting', confidence: 0.7 }, sponsored: { p: 0.35 } } } },
      overrides: { intent: { label: 'complaining' }, sentiment: { label: 'negative' } },
    };
    const f = flattenForCsv(row);
    expect(f['labels.intent.label']).toBe('complaining');
    expect(f['labels.intent.confidence']).toBe('0.7');
    expect(f['labels.sponsored.p']).toBe('0.35');
    expect(f['labels.sentiment.label']).toBe('negative');
    expect(JSON.parse(f['overrides'])).toEqual({ intent: { label: 'complaining' }, sentiment: { label: 'negative' } });
    expect(flattenForCsv({ ...row, overrides: {} })['labels.intent.label']).toBe('promoting');
  });

  it('labelValueProblem: spec values only', () => {
    expect(labelValueProblem('intent', 'label', 'banana')).toMatch(/must be one of asking_for_recommendation/);
    expect(labelValueProblem('intent', 'label', 'complaining')).toBeNull();
    expect(labelValueProblem('intent', 'label', null)).toBeNull();
    expect(labelValueProblem('sentiment', 'label', 'banana')).toMatch(/negative, neutral, positive/);
    expect(labelValueProblem('sponsored', 'p', 1.5)).toMatch(/0 to 1/);
    expect(labelValueProblem('sponsored', 'p', '0.5')).toMatch(/0 to 1/);
    expect(labelValueProblem('sponsored', 'disclosed', true)).toBeNull();
    expect(labelValueProblem('intent', 'urgency', 4)).toMatch(/0 to 3/);
    expect(labelValueProblem('fruit', 'label', 'banana')).toMatch(/not a label family/);
    expect(labelValueProblem('intent', 'colour', 'x')).toMatch(/no field/);
    expect(labelValueProblem('niche', 'label', 'banana', ['fitness', 'coffee'])).toMatch(/value the service uses/);
    expect(labelValueProblem('niche', 'label', 'fitness', ['fitness'])).toBeNull();
    expect(labelValueProblem('niche', 'label', 'personal_no_niche', [])).toBeNull();
  });
});

describe('override → library filter → CSV export, through the app', () => {
  let t: TestApp;
  const call = <T>(m: string, input?: unknown) => t.call<T>(m, input);
  beforeAll(async () => {
    t = await startTestApp({ seed: 7, timeScale: 600 }, 'loupe-ovr-');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the exported row shows the override; free text is refused with the allowed values', async () => {
    await call('api.call', { target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'nasa' } }, source: 'test' });
    const page = await call<{ rows: Array<{ platform: string; kind: string; id: string }> }>('library.query', {
      kinds: ['post'],
      limit: 5,
    });
    const item = page.rows[0];
    const ref = { platform: item.platform, kind: item.kind, id: item.id };

    const bad = await dispatch(t.app, 'library.override', { item: ref, family: 'intent', field: 'label', value: 'banana' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatchObject({ kind: 'validation', message: expect.stringMatching(/intent\.label must be one of/) });

    await call('library.override', { item: ref, family: 'intent', field: 'label', value: 'switching_away' });
    const q = { labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'switching_away' }] };
    const filtered = await call<{ rows: Array<{ id: string }> }>('library.query', { ...q, limit: 100 });
    expect(filtered.rows.map((r) => r.id)).toContain(item.id);

    const job = await call<{ exportId: string; status: string; path?: string | null }>('export.start', {
      query: { kinds: ['post'] },
      format: 'csv',
    });
    let j = job;
    for (let i = 0; i < 200 && j.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      j = await call('export.get', { exportId: job.exportId });
    }
    expect(j.status).toBe('done');
    const text = readFileSync(String(j.path), 'utf8').replace(/^\uFEFF/, '');
    const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
    const row = rows.find((r) => r.id === item.id);
    expect(row?.['labels.intent.label']).toBe('switching_away');
  });
});
