/**
 * Issue 24 #8: a typo of a label family, field or value is refused with the original among the
 * suggestions; every name the label table knows passes (generated over the whole table).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LABEL_SPECS } from './labels';
import { editDistance, labelConditionProblem, nearestNames, unknownNameSentence } from './query-names';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz_';

/** One edit of `s` (insert, delete, substitute, swap two neighbours), as a generator. */
const oneEdit = (s: string) =>
  fc
    .record({
      op: fc.constantFrom('insert', 'delete', 'substitute', 'swap'),
      at: fc.nat({ max: Math.max(0, s.length - 1) }),
      ch: fc.constantFrom(...LETTERS),
    })
    .map(({ op, at, ch }) => {
      if (op === 'insert') return s.slice(0, at) + ch + s.slice(at);
      if (op === 'delete') return s.slice(0, at) + s.slice(at + 1);
      if (op === 'substitute') return s.slice(0, at) + ch + s.slice(at + 1);
      return at + 1 < s.length ? s.slice(0, at) + s[at + 1] + s[at] + s.slice(at + 2) : s;
    });

const FAMILIES = Object.keys(LABEL_SPECS);
const FIELDS = FAMILIES.flatMap((family) => Object.keys(LABEL_SPECS[family].fields).map((field) => ({ family, field })));
const ENUM_VALUES = FIELDS.flatMap(({ family, field }) => {
  const s = LABEL_SPECS[family].fields[field];
  return s.type === 'enum' ? s.values.map((value) => ({ family, field, value })) : [];
});

describe('edit distance and nearest names', () => {
  it('one edit is distance 1 (0 when it changes nothing); the distance is symmetric', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 20 }).chain((s) => fc.tuple(fc.constant(s), oneEdit(s))),
        ([s, t]) => {
          expect(editDistance(s, t)).toBe(s === t ? 0 : 1);
          expect(editDistance(t, s)).toBe(editDistance(s, t));
        },
      ),
    );
  });

  it('case is not a difference; a far name suggests nothing', () => {
    expect(editDistance('Micro_Net', 'micro_net')).toBe(0);
    expect(nearestNames('micro_nett', ['micro_net', 'photo_net', 'forum_net'])).toEqual(['micro_net']);
    expect(nearestNames('banana', ['micro_net', 'photo_net'])).toEqual([]);
    expect(unknownNameSentence('micro_nett', 'network Loupe knows', ['photo_net', 'micro_net'], 'Networks')).toBe(
      '"micro_nett" is not a network Loupe knows. Did you mean micro_net? (Networks: micro_net, photo_net.)',
    );
  });
});

describe('label conditions against the label table', () => {
  it('every family, field and category value of the table passes', () => {
    for (const { family, field } of FIELDS) {
      const s = LABEL_SPECS[family].fields[field];
      const value = s.type === 'enum' ? s.values[0] : s.type === 'bool' ? true : s.type === 'text' ? 'anything' : 0.5;
      expect(labelConditionProblem({ family, field, op: 'eq', value }), `${family}.${field}`).toBeNull();
    }
    expect(labelConditionProblem({ family: 'sponsored', field: 'p', op: 'gte', value: 0.5 })).toBeNull();
    expect(labelConditionProblem({ family: 'intent', field: 'buyer', op: 'eq', value: 'true' })).toBeNull();
  });

  it('a typo of a family is refused and suggests it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAMILIES).chain((f) => fc.tuple(fc.constant(f), oneEdit(f))),
        ([family, typo]) => {
          fc.pre(!FAMILIES.includes(typo));
          const p = labelConditionProblem({ family: typo, field: 'label', op: 'eq', value: 'x' });
          expect(p).toMatch(
            new RegExp(
              `^${JSON.stringify(typo).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a label family\\. Did you mean [^?]*\\b${family}\\b`,
            ),
          );
        },
      ),
    );
  });

  it('a typo of a field is refused and suggests it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FIELDS).chain((f) => fc.tuple(fc.constant(f), oneEdit(f.field))),
        ([{ family, field }, typo]) => {
          fc.pre(!(typo in LABEL_SPECS[family].fields) && typo.length > 0);
          const p = labelConditionProblem({ family, field: typo, op: 'eq', value: 'x' });
          expect(p).toContain(`is not a field of the ${family} labels`);
          if (field.length > 2) expect(p).toMatch(new RegExp(`Did you mean [^?]*\\b${field}\\b`));
        },
      ),
    );
  });

  it('a typo of a category value is refused and suggests it', () => {
    const values = (family: string, field: string) => (LABEL_SPECS[family].fields[field] as { values: readonly string[] }).values;
    fc.assert(
      fc.property(
        fc.constantFrom(...ENUM_VALUES).chain((v) => fc.tuple(fc.constant(v), oneEdit(v.value))),
        ([{ family, field, value }, typo]) => {
          fc.pre(!values(family, field).includes(typo));
          const p = labelConditionProblem({ family, field, op: 'eq', value: typo });
          expect(p).toContain(`is not a value of ${family}.${field}`);
          expect(p).toMatch(new RegExp(`Did you mean [^?]*\\b${value}\\b`));
        },
      ),
    );
  });

  it('values of the wrong type say what the field holds; what the archive holds counts as known', () => {
    expect(labelConditionProblem({ family: 'sponsored', field: 'p', op: 'eq', value: 'high' })).toMatch(
      /sponsored\.p is a number \(a probability from 0 to 1\)/,
    );
    expect(labelConditionProblem({ family: 'intent', field: 'buyer', op: 'eq', value: 'yes' })).toMatch(/write true or false/);
    expect(labelConditionProblem({ family: 'intent', field: 'label', op: 'gte', value: 1 })).toMatch(/compare it with = or !=/);
    const held = {
      fields: new Map([['tone', ['label']]]),
      holds: (_f: string, _x: string, v: string) => v === 'praising',
      values: () => ['praising'],
    };
    expect(labelConditionProblem({ family: 'tone', field: 'label', op: 'eq', value: 'calm' }, held)).toBeNull();
    expect(labelConditionProblem({ family: 'intent', field: 'label', op: 'eq', value: 'praising' }, held)).toBeNull();
    expect(labelConditionProblem({ family: 'intent', field: 'label', op: 'eq', value: 'praisin' }, held)).toMatch(
      /Did you mean praising\?/,
    );
  });
});
