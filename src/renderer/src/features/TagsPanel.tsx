/**
 * The Tags manager (issue 27 #7), in the Library (its "Tags…" button, or "Manage tags" in the
 * command palette): rename, merge, delete and colour tags through the contract's `tags.*`. A merge
 * or a delete first asks the core what it touches (its dry run) and says so before asking; a rename
 * to another tag's name offers the merge instead. Every control is a button, a select or a dialog:
 * Tab, Enter and Esc do it all. The app has no undo; the questions come first instead.
 */
import { useQueryClient } from '@tanstack/react-query';
import { TAG_COLOURS, type TagColour } from '../../../shared/contract-constants';
import type { TagChange, TagInfo } from '../../../shared/contract-tags';
import { api } from '../lib/api';
import { fmtExact } from '../lib/format';
import { useLoupe } from '../queries/hooks';
import { invalidate } from '../queries/keys';
import { useUi } from '../stores/ui';
import { PanelHead } from '../components/Controls';
import { TagSwatch } from '../components/cells';
import { runWithToast } from '../components/WayOut';

const items = (n: number): string => `${fmtExact(n)} item${n === 1 ? '' : 's'}`;
const setsWords = (c: TagChange, after: string): string[] =>
  c.savedSets
    ? [`${fmtExact(c.savedSets)} saved set${c.savedSets === 1 ? '' : 's'} filter${c.savedSets === 1 ? 's' : ''} by it; ${after}`]
    : [];

/** The Library's "Tags…" button: opens and closes the manager (the palette's "Manage tags" opens it too). */
export function TagsButton() {
  const open = useUi((s) => s.tagsOpen);
  return (
    <button className="btn small" onClick={() => useUi.getState().setTagsOpen(!open)} aria-expanded={open} data-testid="tags-open">
      Tags…
    </button>
  );
}

/** The manager, when open. */
export function TagsPanel() {
  const open = useUi((s) => s.tagsOpen);
  return open ? <TagsManager onClose={() => useUi.getState().setTagsOpen(false)} /> : null;
}

function TagsManager({ onClose }: { onClose: () => void }) {
  const list = useLoupe('tags.list', {});
  const qc = useQueryClient();
  const tags = list.data ?? [];
  const changed = () => invalidate(qc, 'tags', 'library');
  const ui = useUi.getState;

  const merge = async (from: TagInfo, into: string) => {
    const dry = await api.call('tags.merge', { from: [from.tag], into, dryRun: true });
    const already = dry.alreadyTagged ? ` (${items(dry.alreadyTagged)} already ${dry.alreadyTagged === 1 ? 'carries' : 'carry'} it)` : '';
    const ok = await ui().ask({
      title: `Merge “${from.tag}” into “${dry.tag}”?`,
      lines: [
        `This touches ${items(dry.items)}${already}: each gets “${dry.tag}”, once, and “${from.tag}” is removed.`,
        'Who tagged each item, and when, stays; notes and other tags are not changed.',
        ...setsWords(dry, `they will name “${dry.tag}”.`),
      ],
      okLabel: 'Merge',
      danger: true,
    });
    if (ok)
      await runWithToast(
        async () => {
          await api.call('tags.merge', { from: [from.tag], into });
          changed();
        },
        `Merged “${from.tag}” into “${dry.tag}” on ${items(dry.items)}`,
      );
  };
  const rename = async (t: TagInfo) => {
    const to = await ui().askText({
      title: `Rename “${t.tag}”`,
      label: 'New name',
      initial: t.tag,
      okLabel: 'Rename',
      detail: 'Every item keeps the tag, with who tagged it and when.',
    });
    if (!to || to.trim() === t.tag) return;
    const other = tags.find((x) => x.tag.toLowerCase() === to.trim().toLowerCase() && x.tag.toLowerCase() !== t.tag.toLowerCase());
    if (other) return runWithToast(() => merge(t, other.tag));
    await runWithToast(async () => {
      await api.call('tags.rename', { tag: t.tag, to });
      changed();
    }, `Renamed “${t.tag}” to “${to.trim()}”`);
  };
  const mergeInto = async (t: TagInfo) => {
    const others = tags.filter((x) => x.tag !== t.tag).map((x) => x.tag);
    const into = await ui().askText({
      title: `Merge “${t.tag}” into another tag`,
      label: 'Tag to merge into',
      okLabel: 'Next',
      suggestions: others,
      detail: 'The next step says how many items it touches, before anything changes.',
    });
    if (into) await runWithToast(() => merge(t, into));
  };
  const remove = async (t: TagInfo) => {
    const dry = await api.call('tags.delete', { tag: t.tag, dryRun: true });
    const ok = await ui().ask({
      title: `Delete the tag “${dry.tag}”?`,
      lines: [
        `This removes it from ${items(dry.items)}.`,
        'Notes, label overrides and other tags stay.',
        ...setsWords(dry, 'they will match nothing through it.'),
      ],
      okLabel: 'Delete tag',
      danger: true,
    });
    if (ok)
      await runWithToast(
        async () => {
          await api.call('tags.delete', { tag: t.tag });
          changed();
        },
        `Deleted “${dry.tag}” from ${items(dry.items)}`,
      );
  };
  const colour = (t: TagInfo, c: string) =>
    runWithToast(async () => {
      await api.call('tags.color', { tag: t.tag, color: c === '' ? null : (c as TagColour) });
      changed();
    });

  return (
    <div className="panel tags-panel" data-testid="tags-panel">
      <PanelHead
        title="Tags"
        note={`${fmtExact(tags.length)} tag${tags.length === 1 ? '' : 's'} · rename, merge, delete or colour; a change touches only the tag it names`}
        onClose={onClose}
        closeLabel="Close tags"
      />
      {tags.length === 0 && !list.isLoading ? (
        <div className="muted small">No tags yet: open an item and press t, or select rows and choose Tag.</div>
      ) : null}
      {tags.length ? (
        <table className="tags-table">
          <thead>
            <tr>
              <th scope="col">Tag</th>
              <th scope="col" className="num">
                Items
              </th>
              <th scope="col">Colour</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tags.map((t) => (
              <TagRow key={t.tag} t={t} many={tags.length > 1} on={{ colour, rename, mergeInto, remove }} />
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

type RowActions = {
  colour: (t: TagInfo, c: string) => Promise<void>;
  rename: (t: TagInfo) => Promise<void>;
  mergeInto: (t: TagInfo) => Promise<void>;
  remove: (t: TagInfo) => Promise<void>;
};

/** One tag: its name with its colour, how many items carry it, and what can be done to it. */
function TagRow({ t, many, on }: { t: TagInfo; many: boolean; on: RowActions }) {
  return (
    <tr data-testid="tag-row" data-tag={t.tag}>
      <td>
        <TagSwatch color={t.color} /> <bdi dir="auto">{t.tag}</bdi>
      </td>
      <td className="num">{fmtExact(t.count)}</td>
      <td>
        <select
          value={t.color ?? ''}
          onChange={(e) => void on.colour(t, e.target.value)}
          aria-label={`Colour of ${t.tag}`}
          data-testid="tag-colour"
        >
          <option value="">none</option>
          {TAG_COLOURS.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </td>
      <td className="row gap">
        <button className="btn tiny" onClick={() => void on.rename(t)} aria-label={`Rename ${t.tag}`} data-testid="tag-rename">
          Rename…
        </button>
        <button
          className="btn tiny"
          onClick={() => void on.mergeInto(t)}
          disabled={!many}
          aria-label={`Merge ${t.tag} into another tag`}
          data-testid="tag-merge"
        >
          Merge…
        </button>
        <button
          className="btn tiny"
          onClick={() => void runWithToast(() => on.remove(t))}
          aria-label={`Delete ${t.tag}`}
          data-testid="tag-delete"
        >
          Delete…
        </button>
      </td>
    </tr>
  );
}
