/**
 * The library query's `terms` condition (src/shared/query.ts): the item's text contains that
 * term as the frequency tables count it. Exact by construction — the same tokenizer decides
 * (a SQL function, `loupe_has_term`) — and cheap where it can be: the full-text index, plus the
 * texts it splits otherwise than the tables (`items_spaceless`, migration 0012), or a substring
 * test for emoji first narrows the items to those whose text could hold the term.
 */
import type { Db } from './connection';
import type { TermCondition } from '../../shared/query';
import { SPACELESS_SCRIPT } from '../../shared/spaceless';
import { ftsFriendly, hasTerm, normaliseTerm } from '../text';

export const TERM_FN = 'loupe_has_term';
/** the items whose texts FTS5 and the tables split differently, from their partial index (migration 0012) */
const SPACELESS_RIDS = 'SELECT rid FROM items INDEXED BY items_spaceless WHERE spaceless = 1';

/** Registers loupe_has_term(field, term, text, lang) on a connection (every connection that runs library queries). */
export function registerTermFunctions(db: Db): void {
  db.function(TERM_FN, { deterministic: true }, (field: unknown, term: unknown, text: unknown, lang: unknown) =>
    hasTerm(field as TermCondition['field'], String(term), typeof text === 'string' ? text : null, typeof lang === 'string' ? lang : null)
      ? 1
      : 0,
  );
}

/** SQL for one term condition (items are `i`), or null when the value cannot be such a term. */
export function termClause(t: TermCondition): { clause: string; params: unknown[] } | null {
  const term = normaliseTerm(t.field, t.value);
  if (term === null) return null;
  const check = `${TERM_FN}(?, ?, i.text, i.lang)`;
  if (ftsFriendly(t.field, term)) {
    // one quoted FTS5 string: the tokenizer turns it into the phrase of the term's words; the texts
    // FTS5 splits otherwise than the tables (a script without spaces, a format character) are added
    const phrase = `"${term.replace(/^[#@]/u, '').replace(/"/g, '""')}"`;
    return {
      clause: `(i.rid IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?) OR i.rid IN (${SPACELESS_RIDS})) AND ${check}`,
      params: [phrase, t.field, term],
    };
  }
  // a term of a script without spaces only comes from such a text (the index holds them all)
  if (SPACELESS_SCRIPT.test(term)) return { clause: `i.rid IN (${SPACELESS_RIDS}) AND ${check}`, params: [t.field, term] };
  return { clause: `i.text LIKE ? ESCAPE '\\' AND ${check}`, params: [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, t.field, term] };
}
