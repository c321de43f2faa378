/**
 * `loupe tags list | rename | merge | delete | color` (issue 27 #7): the contract's `tags.*` methods
 * (src/core/methods/tags.ts), as the Library's Tags manager calls them. A merge or a delete first
 * says how many items it touches (the method's dry run) and asks on a terminal, or needs --yes
 * (exit 5 when not approved, nothing changed). A rename or merge changes only what it names.
 */
import type { Command } from 'commander';
import { TAG_COLOURS, isTagColour, type TagChange } from '../../shared/contract-tags';
import type { CliContext } from '../context';
import { UsageError } from '../context';
import { ExitError } from '../exit';
import type { Io } from '../io';
import { fmt } from './common';

const items = (n: number): string => `${fmt(n)} item${n === 1 ? '' : 's'}`;
const sets = (c: TagChange): string =>
  c.savedSets ? ` ${fmt(c.savedSets)} saved set${c.savedSets === 1 ? '' : 's'} filter${c.savedSets === 1 ? 's' : ''} by it` : '';

/** A refused method (no such tag, a name taken) is the user's to fix: exit 2 with its sentence. */
async function asked<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    const kind = (e as { kind?: string }).kind;
    if (kind === 'validation' || kind === 'not_found') throw new UsageError((e as Error).message);
    throw e;
  }
}

export function registerTagCommands(program: Command, io: Io, context: () => CliContext, ask: (q: string) => Promise<boolean>): void {
  const tags = program
    .command('tags')
    .description('the tags on archived items: list, rename, merge, delete, colour (a change touches only what it names)');
  const done = (json: boolean | undefined, change: unknown, words: string) => {
    if (json) io.stdout.write(JSON.stringify(change) + '\n');
    io.stderr.write(words + '\n');
  };
  /** the dry run's words, then the terminal's question or --yes; exit 5 when not approved */
  const approve = async (o: { yes?: boolean; json?: boolean }, dry: TagChange, words: string, question: string) => {
    io.stderr.write(words + '\n');
    if (o.yes || (await ask(question))) return;
    if (o.json) io.stdout.write(JSON.stringify(dry) + '\n');
    throw new ExitError('not_approved', 'Nothing changed: confirm at the prompt, or re-run with --yes.');
  };
  registerListAndColour(tags, io, context, done);

  tags
    .command('rename')
    .argument('<tag>', 'the tag (case ignored)')
    .argument('<new-name>', 'its new name (another tag’s name is refused: merge into it instead)')
    .option('--json', 'what changed as JSON')
    .description('give a tag a new name; every item keeps it, with who tagged it and when')
    .action(async (tag: string, to: string, o: { json?: boolean }) => {
      const c = await asked(() => context().call('tags.rename', { tag, to }));
      done(o.json, c, `Renamed “${tag}” to “${c.tag}” on ${items(c.items)}.${c.savedSets ? `${sets(c)} now.` : ''}`);
    });

  tags
    .command('merge')
    .argument('<tags...>', 'the tags to merge (they are removed)')
    .requiredOption('--into <tag>', 'the tag they become (it must exist)')
    .option('-y, --yes', 'merge without asking')
    .option('--json', 'what changed as JSON')
    .description('move every item of the tags to another tag (an item never carries it twice), then remove them')
    .action(async (from: string[], o: { into: string; yes?: boolean; json?: boolean }) => {
      const c = context();
      const dry = await asked(() => c.call('tags.merge', { from, into: o.into, dryRun: true }));
      const what = from.map((f) => `“${f}”`).join(', ');
      const already = dry.alreadyTagged
        ? ` (${items(dry.alreadyTagged)} already ${dry.alreadyTagged === 1 ? 'carries' : 'carry'} “${dry.tag}”)`
        : '';
      await approve(
        o,
        dry,
        `Merging ${what} into “${dry.tag}” touches ${items(dry.items)}${already}.${sets(dry) ? `${sets(dry)}; it will name “${dry.tag}”.` : ''}`,
        `Merge ${what} into “${dry.tag}”?`,
      );
      const r = await asked(() => c.call('tags.merge', { from, into: o.into }));
      done(o.json, r, `Merged ${what} into “${r.tag}”: ${items(r.items)}.`);
    });

  tags
    .command('delete')
    .argument('<tag>', 'the tag (case ignored)')
    .option('-y, --yes', 'delete without asking')
    .option('--json', 'what changed as JSON')
    .description('remove a tag from every item (notes, other tags and overrides stay)')
    .action(async (tag: string, o: { yes?: boolean; json?: boolean }) => {
      const c = context();
      const dry = await asked(() => c.call('tags.delete', { tag, dryRun: true }));
      await approve(
        o,
        dry,
        `Deleting “${dry.tag}” removes it from ${items(dry.items)}.${sets(dry) ? `${sets(dry)}; they will match nothing through it.` : ''}`,
        `Delete the tag “${dry.tag}”?`,
      );
      const r = await asked(() => c.call('tags.delete', { tag }));
      done(o.json, r, `Deleted “${r.tag}” from ${items(r.items)}.`);
    });
}

/** `tags list` and `tags color`: the reading command and the one that needs no question. */
function registerListAndColour(
  tags: Command,
  io: Io,
  context: () => CliContext,
  done: (json: boolean | undefined, change: unknown, words: string) => void,
): void {
  tags
    .command('list')
    .option('--json', 'one JSON line per tag: tag, count, color, createdAt')
    .description('every tag with how many items carry it and its colour')
    .action(async (o: { json?: boolean }) => {
      const list = await context().call('tags.list', {});
      if (o.json) return void list.forEach((t) => io.stdout.write(JSON.stringify(t) + '\n'));
      if (list.length === 0) return void io.stderr.write('No tags yet: tag items in the Library, or with `loupe library` and the app.\n');
      const w = Math.max(...list.map((t) => t.tag.length));
      for (const t of list) io.stdout.write(`${t.tag.padEnd(w)}  ${String(t.count).padStart(7)}  ${t.color ?? ''}`.trimEnd() + '\n');
    });

  tags
    .command('color')
    .alias('colour')
    .argument('<tag>', 'the tag (case ignored)')
    .argument('<colour>', `one of ${TAG_COLOURS.join(', ')}, or none`)
    .option('--json', 'the tag as JSON')
    .description('give a tag a colour (or none)')
    .action(async (tag: string, colour: string, o: { json?: boolean }) => {
      const name = colour
        .trim()
        .toLowerCase()
        .replace(/^gray$/, 'grey');
      if (name !== 'none' && !isTagColour(name))
        throw new UsageError(`A tag's colour is one of ${TAG_COLOURS.join(', ')}, or none; got "${colour}".`);
      const t = await asked(() => context().call('tags.color', { tag, color: name === 'none' ? null : name }));
      done(o.json, t, t.color ? `“${t.tag}” is ${t.color}.` : `“${t.tag}” has no colour.`);
    });
}
