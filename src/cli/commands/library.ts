/**
 * `loupe library [--search QUERY] [query flags] [--limit N] [--jsonl]` — the library query on the
 * command line: how many archived items match, and the first N of them (newest first by default),
 * as a readable table or as JSON lines (ids as strings). `--search` is the boolean full-text
 * search (docs/archive.md, `text`): `crumb OR northpeak`, `cake NOT vegan`, `(a OR b) c`,
 * `"a phrase"`, `crum*`, `a NEAR/3 b`; a malformed one is a usage error (exit 2) saying what to
 * write. Reads only: works in a read-only data folder.
 */
import type { Command } from 'commander';
import type { LibraryRowFields } from '../../shared/query';
import { visible } from '../../shared/visible';
import type { CliContext } from '../context';
import { UsageError } from '../context';
import type { Io } from '../io';
import { buildLibraryQuery, watchlistResolved, withQueryFlags, type QueryFlags } from '../query-flags';

type LibraryFlags = QueryFlags & { search?: string; limit?: string; jsonl?: boolean };

const oneLine = (s: string | null, n: number): string => {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
};

function line(r: LibraryRowFields): string {
  const when = r.publishedAt === null ? '—' : new Date(r.publishedAt).toISOString().slice(0, 16).replace('T', ' ');
  const likes = r.engagement.likes === null ? '—' : String(r.engagement.likes);
  // one line whatever a name holds: a line break in it is shown escaped, as every control is
  return visible(
    [`${r.platform}/${r.kind}/${r.id}`, when, `@${r.author.username ?? r.author.id ?? '?'}`, `${likes} likes`, oneLine(r.text, 100)].join(
      '  ',
    ),
  );
}

export function registerLibraryCommand(program: Command, io: Io, context: () => CliContext): void {
  withQueryFlags(program.command('library'))
    .description(
      'archived items matching a library query: the count and the first N (boolean --search: OR, NOT, ( ), "phrase", word*, NEAR)',
    )
    .option('--search <query>', 'full-text search: words (all must appear), OR, NOT, ( ), "exact phrase", prefix*, a NEAR b, a NEAR/3 b')
    .option('--sort <field:dir>', 'e.g. published_at:desc (default), likes:desc')
    .option('--limit <n>', 'rows shown, 1-1000 (default 20)')
    .option('--jsonl', 'rows as JSON lines on stdout (the count stays on stderr)')
    .action(async (o: LibraryFlags) => {
      if (o.search !== undefined && o.text !== undefined && o.search !== o.text)
        throw new UsageError('Give the search once: --search or --text, not both.');
      const limit = o.limit === undefined ? 20 : Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError(`--limit takes 1 to 1000; got "${o.limit}".`);
      const c = context();
      let q;
      try {
        q = buildLibraryQuery({ ...o, text: o.search ?? o.text, sort: o.sort ?? 'published_at:desc' });
      } catch (e) {
        if (e instanceof UsageError && o.search !== undefined) throw new UsageError(e.message.replace(/^--text: /, '--search: '));
        throw e;
      }
      q = await watchlistResolved(q, c);
      // the contract's library.query / library.count of the composed app
      const page = await c.call('library.query', { ...q, limit });
      const total = page.total ?? (await c.call('library.count', q));
      io.stderr.write(
        `${total.toLocaleString('en-US')} matching item(s)${total > page.rows.length ? `; the first ${page.rows.length} shown (--limit)` : ''}.\n`,
      );
      for (const r of page.rows) io.stdout.write((o.jsonl ? JSON.stringify(r) : line(r)) + '\n');
    });
}
