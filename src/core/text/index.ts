/**
 * Text, the bottom package of src/core (docs/architecture.md "The order inside core"): the
 * tokenizer and term rules the archive's SQL function and the analyses both read text with, the
 * pseudonyms exports and network files write, and XML-safe strings. Imports nothing of core but
 * the ports.
 */
export {
  TERM_FIELDS,
  type TermField,
  type Token,
  type TermsOf,
  stopWords,
  domainOf,
  extractTerms,
  extractTermsPaired,
  hasTerm,
  normaliseTerm,
  ftsFriendly,
} from './terms';
export { PSEUDONYM_SECRET_FILE, loadPseudonymSecret, Pseudonymiser } from './pseudonym';
export { xmlSafe, xmlAttr, xmlText } from './xml';
