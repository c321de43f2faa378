import { describe, it, expect } from 'vitest';
import { ENDPOINTS } from '../registry';
import type { EndpointDef } from '../types';
import { createWorld } from './index';

const EPOCH = Date.UTC(2026, 0, 1);

/** Required params (and the first of each one-of group) filled from the catalogue examples. */
function sampleParams(def: EndpointDef): Record<string, string> {
  const out: Record<string, string> = {};
  const groups = new Set<string>();
  for (const p of def.params) {
    const example = p.example === null || p.example === undefined ? 'sample' : String(p.example);
    if (p.required) out[p.name] = example;
    else if (p.one_of_group && !groups.has(p.one_of_group)) {
      groups.add(p.one_of_group);
      out[p.name] = example;
    }
  }
  return out;
}

describe('every registry endpoint is served by the world', () => {
  it('yields a feed or a single record without throwing, with string ids', () => {
    const w = createWorld(4);
    expect(ENDPOINTS.length).toBeGreaterThan(100);
    for (const def of ENDPOINTS) {
      if (!def.gettable) continue;
      const q = { def, params: sampleParams(def), now: EPOCH + 3_600_000 };
      const label = `${def.platform}/${def.path}`;
      if (def.shape === 'list') {
        const r = w.feed(q);
        expect('notFound' in r, label).toBe(false);
        if ('notFound' in r) continue;
        expect(Array.isArray(r.unavailable), label).toBe(true);
        for (const row of r.rows.slice(0, 20)) {
          expect(typeof row.id, label).toBe('string');
          const keys = Object.keys(row.item);
          expect(keys.length, label).toBe(1);
          expect(row.item[keys[0]].id, label).toBe(row.id);
        }
      } else {
        const r = w.single(q);
        expect('notFound' in r, label).toBe(false);
      }
    }
  });
});
