/** One entry per network kind and per export format, each declared once (issue 25). */
import { describe, expect, it } from 'vitest';
import { NETWORK_KINDS as CONTRACT_KINDS, NETWORK_ENTITIES, NETWORK_WORDS } from '../../shared/contract-network';
import { EXPORT_FORMAT_NAMES, EXPORT_FORMAT_TRAITS } from '../../shared/contract-library';
import { FORMATS, checkExportOptions } from '../export/formats';
import { buildNetworkFromFacts, NETWORK_KINDS } from './network';
import { NETWORK_KIND_DEFS } from './network-kinds';
import { factsOptionsFor } from './network-source';

describe('the registries of network kinds and export formats', () => {
  it('every kind of the contract has one entry (and words), and the core has no list of its own', () => {
    expect(NETWORK_KINDS).toBe(CONTRACT_KINDS);
    expect(Object.keys(NETWORK_KIND_DEFS).sort()).toEqual([...CONTRACT_KINDS].sort());
    expect(Object.keys(NETWORK_WORDS).sort()).toEqual([...CONTRACT_KINDS].sort());
    expect(Object.keys(NETWORK_ENTITIES).sort()).toEqual([...CONTRACT_KINDS].sort());
    for (const k of CONTRACT_KINDS) expect(factsOptionsFor(k).authors).toBe(NETWORK_KIND_DEFS[k].readsAuthors);
    expect(factsOptionsFor('no-such').authors).toBe(false);
    expect(() => buildNetworkFromFacts([], { kind: 'no-such' as never })).toThrow(/unknown kind/);
  });

  it('every format of the contract has one run and one set of traits; a network format asks for a kind', () => {
    expect(Object.keys(FORMATS).sort()).toEqual([...EXPORT_FORMAT_NAMES].sort());
    expect(Object.keys(EXPORT_FORMAT_TRAITS).sort()).toEqual([...EXPORT_FORMAT_NAMES].sort());
    for (const f of EXPORT_FORMAT_NAMES) {
      const t = EXPORT_FORMAT_TRAITS[f];
      if (t.network) {
        expect(() => checkExportOptions({ format: f }), f).toThrow(/choose one with --network/);
        expect(() => checkExportOptions({ format: f, network: 'mentions' }), f).not.toThrow();
        expect(FORMATS[f].companions, f).toBe('none');
      } else {
        expect(() => checkExportOptions({ format: f, network: 'mentions' }), f).toThrow(/GEXF or GraphML/);
        expect(() => checkExportOptions({ format: f }), f).not.toThrow();
      }
    }
  });
});
