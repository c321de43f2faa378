/**
 * The library's full-text search syntax (issue 16: "Crumb OR Northpeak" returned nothing), parsed
 * into a safe SQLite FTS5 expression. User text never reaches MATCH as written: every word and
 * phrase is re-quoted (embedded quotes doubled), and only the operators below are emitted.
 *
 *   crumb cake              both words (AND is implied; `AND` may be written)
 *   crumb OR northpeak      either
 *   cake NOT vegan          the first without the second (NOT needs something before it);
 *   cake -vegan             the same (a minus before a word, "phrase" or group, as search boxes write it)
 *   (crumb OR crust) cake   grouping
 *   "crumb cake"            the exact phrase;  crum*  a prefix
 *   crumb NEAR cake         within 10 words of each other; NEAR/3 within 3; NEAR(a b c, 5) as FTS5 writes it
 *
 * Operators are words in any case (`or`, `Or`, `OR`); to search for the word itself, quote it
 * ("or"). Precedence, tightest first: NEAR, NOT, AND, OR (FTS5's own order). A word without any
 * letter or digit (emoji, punctuation) is not searchable: a query made only of those parses to
 * null (the caller may fall back to a substring match); next to an operator it is an error.
 * Malformed input (unbalanced parentheses, an operator without words on both sides, a NEAR
 * distance that is not a number) throws SearchSyntaxError, whose message says what to write.
 * Light (only the error model): the renderer checks a query as it is typed.
 */
import { LoupeError } from './errors';

export class SearchSyntaxError extends LoupeError {
  /** a user error (the doors report it as such, not as a failure of Loupe) */
  declare readonly kind: 'validation';
  constructor(message: string) {
    super('validation', `Search: ${message}`);
    this.name = 'SearchSyntaxError';
  }
}

/** What the search box says about the syntax (one line, for a hint or a title). */
export const SEARCH_SYNTAX_HINT =
  'Words must all appear. OR: either · NOT or -word: without · ( ) groups · "exact phrase" · word* prefix · a NEAR b (within 10 words; NEAR/3 within 3)';

const DEFAULT_NEAR = 10;
const MAX_NEAR = 1000;

type Tok =
  | { t: 'word'; v: string; prefix: boolean; quoted: boolean }
  | { t: 'op'; v: 'AND' | 'OR' | 'NOT'; minus?: string }
  | { t: 'near'; n: number | null; group: boolean }
  | { t: '(' }
  | { t: ')' }
  | { t: ',' };

type Node =
  | { k: 'phrase'; text: string; prefix: boolean }
  | { k: 'and' | 'or'; items: Node[] }
  | { k: 'not'; a: Node; b: Node }
  | { k: 'near'; items: Array<Extract<Node, { k: 'phrase' }>>; n: number };

const searchable = (s: string): boolean => /[\p{L}\p{N}]/u.test(s);

/** NOT (or a minus) with nothing before it: FTS5's NOT leaves words out of others. */
function notFirst(t: Extract<Tok, { t: 'op' }> | undefined): SearchSyntaxError {
  return t?.minus
    ? new SearchSyntaxError(`"${t.minus}" leaves words out of others: put the words to keep first, e.g. cake ${t.minus}.`)
    : new SearchSyntaxError('"NOT" needs words before it, e.g. cake NOT vegan.');
}

function tokenize(input: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    const c = input[i];
    if (/\s/u.test(c)) {
      i++;
    } else if (c === '"') {
      const end = input.indexOf('"', i + 1);
      const text = end === -1 ? input.slice(i + 1) : input.slice(i + 1, end); // an unclosed quote runs to the end
      i = end === -1 ? n : end + 1;
      let prefix = false;
      if (input[i] === '*') {
        prefix = true;
        while (input[i] === '*') i++;
      }
      out.push({ t: 'word', v: text, prefix, quoted: true });
    } else if (c === '-' && i + 1 < n && !/[\s),-]/u.test(input[i + 1])) {
      // `-word`, `-"a phrase"`, `-(a OR b)`: leave them out, as search boxes do (NOT)
      const end = input.slice(i).search(/\s|$/u);
      out.push({ t: 'op', v: 'NOT', minus: input.slice(i, i + end) });
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ t: c });
      i++;
    } else {
      let j = i;
      while (j < n && !/[\s"(),]/u.test(input[j])) j++;
      let w = input.slice(i, j);
      i = j;
      const near = /^near(?:\/(.*))?$/iu.exec(w);
      if (near) {
        if (near[1] !== undefined && !/^\d+$/u.test(near[1]))
          throw new SearchSyntaxError(`"${w}" needs a number of words after the slash, e.g. NEAR/5.`);
        out.push({ t: 'near', n: near[1] === undefined ? null : Number(near[1]), group: input[i] === '(' && near[1] === undefined });
        continue;
      }
      if (/^(and|or|not)$/iu.test(w)) {
        out.push({ t: 'op', v: w.toUpperCase() as 'AND' | 'OR' | 'NOT' });
        continue;
      }
      let prefix = false;
      const star = /\*+$/u.exec(w);
      if (star) {
        w = w.slice(0, star.index);
        prefix = true;
      }
      out.push({ t: 'word', v: w, prefix, quoted: false });
    }
  }
  return out;
}

const opName = (t: Tok): string => (t.t === 'op' ? t.v : t.t === 'near' ? 'NEAR' : t.t);

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(offset = 0): Tok | undefined {
    return this.toks[this.i + offset];
  }

  parse(): Node | null {
    const node = this.or();
    const t = this.peek();
    if (t) {
      if (t.t === ')') throw new SearchSyntaxError('a ")" has no "(" before it.');
      throw new SearchSyntaxError(`unexpected "${opName(t)}".`);
    }
    return node;
  }

  /** the start of an operand: a word, a phrase, a group, NEAR(…) — or an operator with nothing before it */
  private startsOperand(t: Tok | undefined): boolean {
    return !!t && (t.t === 'word' || t.t === '(' || (t.t === 'near' && t.group));
  }

  private or(): Node | null {
    const items: Node[] = [];
    const first = this.and();
    if (first) items.push(first);
    while (this.peek()?.t === 'op' && (this.peek() as { v: string }).v === 'OR') {
      this.i++;
      if (items.length === 0) throw new SearchSyntaxError('"OR" needs words before it, e.g. crumb OR northpeak.');
      const next = this.and();
      if (!next) throw new SearchSyntaxError('"OR" needs words after it, e.g. crumb OR northpeak.');
      items.push(next);
    }
    return items.length === 0 ? null : items.length === 1 ? items[0] : { k: 'or', items };
  }

  private and(): Node | null {
    const items: Node[] = [];
    for (;;) {
      const t = this.peek();
      if (t?.t === 'op' && t.v === 'AND') {
        this.i++;
        if (items.length === 0) throw new SearchSyntaxError('"AND" needs words before it, e.g. crumb AND cake.');
        if (!this.startsOperand(this.peek())) throw new SearchSyntaxError('"AND" needs words after it, e.g. crumb AND cake.');
        continue;
      }
      if (t?.t === 'op' && t.v === 'NOT' && items.length === 0) throw notFirst(t);
      if (t?.t === 'near' && !t.group && items.length === 0)
        throw new SearchSyntaxError('"NEAR" needs words before it, e.g. crumb NEAR cake.');
      if (t?.t === ',') {
        this.i++; // a comma outside NEAR(…) separates words like a space
        continue;
      }
      if (!this.startsOperand(t)) break;
      const n = this.not();
      if (n) items.push(n);
    }
    return items.length === 0 ? null : items.length === 1 ? items[0] : { k: 'and', items };
  }

  private not(): Node | null {
    let a = this.near();
    while (this.peek()?.t === 'op' && (this.peek() as { v: string }).v === 'NOT') {
      this.i++;
      if (!a) throw notFirst(this.peek(-1) as Extract<Tok, { t: 'op' }>);
      if (!this.startsOperand(this.peek())) throw new SearchSyntaxError('"NOT" needs words after it, e.g. cake NOT vegan.');
      const b = this.near();
      if (!b) throw new SearchSyntaxError('"NOT" needs words after it that can be searched (letters or digits).');
      a = { k: 'not', a, b };
    }
    return a;
  }

  private near(): Node | null {
    const first = this.unary();
    let node: Node | null = first;
    while (this.peek()?.t === 'near' && !(this.peek() as { group: boolean }).group) {
      const op = this.peek() as { n: number | null };
      this.i++;
      const n = distance(op.n);
      if (!node || node.k === 'and' || node.k === 'or' || node.k === 'not')
        throw new SearchSyntaxError('"NEAR" joins words or phrases, e.g. crumb NEAR cake (not groups).');
      if (!this.startsOperand(this.peek()) || this.peek()?.t !== 'word')
        throw new SearchSyntaxError('"NEAR" needs a word or phrase after it, e.g. crumb NEAR cake.');
      const b = this.unary();
      if (!b || b.k !== 'phrase')
        throw new SearchSyntaxError('"NEAR" needs a word or phrase after it that can be searched (letters or digits).');
      const left = node as Extract<Node, { k: 'phrase' | 'near' }>;
      node = left.k === 'near' ? { k: 'near', items: [...left.items, b], n: Math.max(left.n, n) } : { k: 'near', items: [left, b], n };
    }
    return node;
  }

  private unary(): Node | null {
    const t = this.peek();
    if (!t) return null;
    if (t.t === 'word') {
      this.i++;
      return searchable(t.v) ? { k: 'phrase', text: t.v, prefix: t.prefix } : null;
    }
    if (t.t === '(') {
      this.i++;
      const inner = this.or();
      const close = this.peek();
      if (!close) throw new SearchSyntaxError('a "(" is not closed: add a ")".');
      if (close.t !== ')') throw new SearchSyntaxError(`unexpected "${opName(close)}" inside parentheses.`);
      this.i++;
      if (!inner) throw new SearchSyntaxError('empty parentheses: put words inside, e.g. (crumb OR crust).');
      return inner;
    }
    if (t.t === 'near' && t.group) return this.nearGroup();
    return null;
  }

  /** NEAR(a b "c d", 5) — FTS5's own form */
  private nearGroup(): Node {
    this.i += 2; // NEAR (
    const items: Array<Extract<Node, { k: 'phrase' }>> = [];
    let n = DEFAULT_NEAR;
    for (;;) {
      const t = this.peek();
      if (!t) throw new SearchSyntaxError('NEAR( is not closed: write NEAR(crumb cake, 5).');
      this.i++;
      if (t.t === ')') break;
      if (t.t === 'word') {
        if (searchable(t.v)) items.push({ k: 'phrase', text: t.v, prefix: t.prefix });
        continue;
      }
      if (t.t === ',') {
        const num = this.peek();
        if (num?.t !== 'word' || num.quoted || !/^\d+$/u.test(num.v))
          throw new SearchSyntaxError('NEAR(…, N) takes a number of words after the comma, e.g. NEAR(crumb cake, 5).');
        n = distance(Number(num.v));
        this.i++;
        if (this.peek()?.t !== ')') throw new SearchSyntaxError('NEAR(…, N) ends after the number: add a ")".');
        continue;
      }
      throw new SearchSyntaxError(`NEAR(…) holds words and phrases only, not "${opName(t)}".`);
    }
    if (items.length < 2) throw new SearchSyntaxError('NEAR(…) needs at least two words or phrases, e.g. NEAR(crumb cake, 5).');
    return { k: 'near', items, n };
  }
}

function distance(n: number | null): number {
  if (n === null) return DEFAULT_NEAR;
  if (!Number.isSafeInteger(n) || n > MAX_NEAR) throw new SearchSyntaxError(`a NEAR distance is a number of words up to ${MAX_NEAR}.`);
  return n;
}

const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;

function emit(n: Node, top: boolean): string {
  switch (n.k) {
    case 'phrase':
      return quote(n.text) + (n.prefix ? '*' : '');
    case 'near':
      return `NEAR(${n.items.map((p) => emit(p, false)).join(' ')}, ${n.n})`;
    case 'not':
      return wrap(`${emit(n.a, false)} NOT ${emit(n.b, false)}`, top);
    case 'and':
      // plain words keep FTS5's implicit AND ("a" "b"), the form Loupe always sent
      return wrap(n.items.map((x) => emit(x, false)).join(n.items.every((x) => x.k === 'phrase') ? ' ' : ' AND '), top);
    case 'or':
      return wrap(n.items.map((x) => emit(x, false)).join(' OR '), top);
  }
}

const wrap = (s: string, top: boolean): string => (top ? s : `(${s})`);

/**
 * The FTS5 expression of a search, or null when it holds nothing searchable (no letters or digits
 * and no operators). Throws SearchSyntaxError for malformed input.
 */
export function parseSearch(input: string): string | null {
  const node = new Parser(tokenize(input)).parse();
  return node ? emit(node, true) : null;
}
