import { describe, expect, it } from 'vitest';
import { bucketWords, paramWords, showBidiControls } from './words';

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
