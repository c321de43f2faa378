/**
 * The full-text search syntax beside a search box (issue 16: boolean search), or what is wrong with
 * the query just typed. The query is checked here with the same parser the archive uses
 * (src/shared/search-syntax.ts), so a malformed query is explained at once and not sent.
 */
import { parseSearch, SearchSyntaxError, SEARCH_SYNTAX_HINT } from '../../../shared/search-syntax';

export { SEARCH_SYNTAX_HINT };

/** The error of a search text in words, or null when the archive can run it. */
export function searchError(text: string): string | null {
  try {
    parseSearch(text);
    return null;
  } catch (e) {
    if (e instanceof SearchSyntaxError) return e.message.replace(/^Search: /, '');
    throw e;
  }
}

export function SearchHint({ id, error }: { id: string; error: string | null }) {
  return (
    <span
      id={id}
      className={`search-hint ${error ? 'errtext' : 'muted'}`}
      role="status"
      title={error ?? SEARCH_SYNTAX_HINT}
      data-testid={`${id}`}
    >
      {error ? `Not searched: ${error}` : <>OR · NOT · ( ) · &quot;phrase&quot; · word* · NEAR</>}
    </span>
  );
}
