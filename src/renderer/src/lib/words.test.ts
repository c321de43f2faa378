import { describe, expect, it } from 'vitest';
import { bucketWords, forecastLine, keychainNotice, paramWords, showBidiControls, showName } from './words';

describe('human words (issue 14 #10)', () => {
  it('parameters', () => {
    expect(paramWords('max_pages')).toBe('Pages per request');
    expect(paramWords('fit')).toBe('Keep only rows for a goal');
    expect(paramWords('continuationToken')).toBe('Continuation Token');
    expect(paramWords('some_new_param')).toBe('Some new param');
  });
  it('chart buckets: never "null", label values in words', () => {
    expect(bucketWords('null', { family: 'intent', field: 'label' })).toBe('not judged / unsure');
    expect(bucketWords(null)).toBe('unknown');
    expect(bucketWords('switching_away', { family: 'intent', field: 'label' })).toBe('switching away');
    expect(bucketWords('true', { family: 'sponsored', field: 'undisclosed' })).toBe('yes');
  });
  it('bidi controls are shown, not obeyed', () => {
    expect(showBidiControls('evil\u202Eexe.txt')).toBe('evil⟨RLO⟩exe.txt');
    expect(showBidiControls('שלום world')).toBe('שלום world');
  });
});

describe('names show what they are made of (issue 27 #19)', () => {
  it('zero-width and invisible characters become visible; emoji sequences stay whole', () => {
    expect(showName('n\u200Da\u200Ds\u200Da')).toBe('n⟨ZWJ⟩a⟨ZWJ⟩s⟨ZWJ⟩a');
    expect(showName('nasa')).toBe('nasa');
    expect(showName('gpj.\u202Eexe.evil')).toBe('gpj.⟨RLO⟩exe.evil');
    expect(showName('a\u200Bb\uFEFFc\u00ADd\u2060e\u200Ef')).toBe('a⟨ZWSP⟩b⟨ZWNBSP⟩c⟨SHY⟩d⟨WJ⟩e⟨LRM⟩f');
    expect(showName('dev 👩\u200D💻 and 👨🏽\u200D💻')).toBe('dev 👩\u200D💻 and 👨🏽\u200D💻');
    expect(showName('❤️\u200D🔥')).toBe('❤️\u200D🔥');
    expect(showName('x\u200D💻')).toBe('x⟨ZWJ⟩💻');
  });
});

describe('words read as sentences (issue 27 #13)', () => {
  it('the forecast line: one lead, one full stop', () => {
    const old = 'No history yet: a forecast needs two runs (a first run sets the baseline; the second measures how fast new items arrive).';
    expect(forecastLine(old)).toBe(
      'No forecast yet. A forecast needs two runs (a first run sets the baseline; the second measures how fast new items arrive).',
    );
    for (const note of [
      old,
      'The runs so far are less than an hour apart; a forecast needs runs spread over time.',
      'No watches yet.',
      'No schedule and no interval between runs to forecast from',
      null,
    ]) {
      const line = forecastLine(note);
      expect(line).not.toMatch(/\.\.|: No|yet: /);
      expect(line).toMatch(/^No forecast yet\. [A-Z].*[.!?]$/);
    }
  });
  it('the keychain is an error only when a key is needed or held', () => {
    const msg = 'Keys cannot be stored: no OS keychain answered (org.freedesktop.secrets).';
    expect(keychainNotice({ sandbox: true, secretBackendMessage: msg }, 0)).toMatchObject({ error: false });
    expect(keychainNotice({ sandbox: true, secretBackendMessage: msg }, 1)).toMatchObject({ error: true, text: msg });
    expect(keychainNotice({ sandbox: false, secretBackendMessage: msg }, 0)).toMatchObject({ error: true });
    expect(keychainNotice({ sandbox: true, secretBackendMessage: null }, 0)).toBeNull();
  });
});
