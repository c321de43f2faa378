/**
 * Texts the full-text index and the frequency tables split into words differently (see
 * src/core/archive/migrations/0012-spaceless-texts.ts): those with a character of a script written
 * without spaces — the tables' tokenizer segments them with Intl.Segmenter (src/core/analysis/
 * terms.ts) while FTS5's unicode61 keeps a run of letters as one token ("Fernwayのnewspaper") — or
 * with an invisible format character (General Category Cf), which the tables drop inside a word
 * and FTS5 splits at. The archive marks such items (`items.spaceless`, extract.ts).
 */

/** a character of a script written without spaces */
export const SPACELESS_SCRIPT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\p{sc=Tibetan}]/u;

const SPLIT_OTHERWISE = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\p{sc=Tibetan}\p{Cf}]/u;

/** Whether the full-text index may split `text` otherwise than the frequency tables do. */
export function splitsOtherwise(text: string | null): boolean {
  return text !== null && SPLIT_OTHERWISE.test(text);
}
