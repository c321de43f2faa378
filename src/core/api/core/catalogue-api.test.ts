/** The catalogue's pieces on their own (catalogue-api.ts): freshness, a target checked against it, loads shared and kept. */
import { describe, expect, it } from 'vitest';
import type { Catalogue } from '../../../shared/api-types';
import { CatalogueIndex } from '../catalogue';
import { Emitter } from '../events';
import { endpointDef, InstantClock, p } from '../test-helpers';
import type { ApiEvents } from '../types';
import { createEndpoints, isFresh, validateTarget } from './catalogue-api';

const EP = endpointDef('photo_net', 'profile/posts', { params: [p('handle', { required: true })] });
const catalogueOf = (): Catalogue => ({
  success: true,
  base_url: 'http://sdr.test',
  docs: '',
  auth: { header: 'x-api-key', format: '', note: '' },
  headers: {},
  pricing: { note: '', free: [] },
  tools: {},
  summary: { endpoints: 2, gettable: 2, metered: 0, platforms: 2, spec_version: '1', schema_version: '1', max_our_credits: 20 },
  meta_endpoints: [],
  endpoints: [EP, endpointDef('forum_net', 'search/comments')],
});

describe('a target against the catalogue', () => {
  const idx = new CatalogueIndex(catalogueOf());
  it('an unknown network names the ones served; an unknown endpoint says where to look', () => {
    expect(validateTarget(idx, { platform: 'nope_net', endpoint: 'x', params: {} })).toEqual({
      ok: false,
      message: "Unknown network 'nope_net': the catalogue serves forum_net, photo_net.",
    });
    expect(validateTarget(idx, { platform: 'photo_net', endpoint: 'profile/nothing', params: {} })).toMatchObject({
      ok: false,
      message: expect.stringContaining("Unknown endpoint 'profile/nothing' on photo_net"),
    });
  });
  it('a known endpoint: its parameters checked', () => {
    expect(validateTarget(idx, { platform: 'photo_net', endpoint: 'profile/posts', params: {} }).ok).toBe(false);
    expect(validateTarget(idx, { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } })).toMatchObject({
      ok: true,
      endpoint: EP,
    });
  });
  it('fresh for strictly less than its age limit', () => {
    expect(isFresh(0, 999, 1000)).toBe(true);
    expect(isFresh(0, 1000, 1000)).toBe(false);
  });
});

describe('the catalogue in memory', () => {
  const setup = () => {
    const clock = new InstantClock();
    let fetches = 0;
    const logs: string[] = [];
    const e = createEndpoints({
      meta: async () => {
        fetches++;
        return catalogueOf();
      },
      clock,
      maxAgeMs: 60_000,
      log: (l) => logs.push(l),
      events: new Emitter<ApiEvents>(),
    });
    return { e, clock, logs, fetches: () => fetches };
  };
  it('concurrent loads share one fetch; kept until its age limit, then fetched again', async () => {
    const t = setup();
    await Promise.all([t.e.catalogue.load(), t.e.catalogue.load(), t.e.validate({ platform: 'photo_net', endpoint: 'x', params: {} })]);
    expect(t.fetches()).toBe(1);
    await t.clock.sleep(59_999);
    await t.e.catalogue.load();
    expect(t.fetches()).toBe(1);
    await t.clock.sleep(1);
    await t.e.catalogue.load();
    expect(t.fetches()).toBe(2);
  });
  it('an invalid call is refused before anything is spent, as a validation error', async () => {
    const t = setup();
    await expect(t.e.endpointOf({ platform: 'nope_net', endpoint: 'x', params: {} })).rejects.toMatchObject({ kind: 'validation' });
    expect(await t.e.endpointOf({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } })).toBe(EP);
  });
});
