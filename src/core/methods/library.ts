/** The contract's `library.*` methods: queries, charts, tags, notes, label overrides, result sets over the archive. */
import { labelFieldSpec, labelValueProblem } from '../../shared/labels';
import type { ItemDetail } from '../../shared/contract';
import type { Archive } from '../archive';
import { AppError } from '../bridge';
import type { Slice } from './parts';

export function libraryMethods(archive: Archive): Slice<'library'> {
  return {
    async 'library.query'({ lean, ...q }) {
      return lean ? archive.listQuery(q) : archive.query(q);
    },
    async 'library.count'(q) {
      return archive.count(q);
    },
    async 'library.item'(ref): Promise<ItemDetail | null> {
      return archive.getItem(ref.platform, ref.kind, ref.id) ?? null;
    },
    async 'library.volume'(i) {
      return archive.volumeOverTime(i.query, i.bucket);
    },
    async 'library.engagement'(i) {
      return archive.engagementOverTime(i.query, i.bucket, i.field);
    },
    async 'library.labelDistribution'(i) {
      return archive.labelDistribution(i.query, i.family, i.field);
    },
    async 'library.topAuthors'(i) {
      return archive.topAuthors(i.query, i.limit);
    },
    async 'library.tags'() {
      return archive.listTags();
    },
    async 'library.tag'(i) {
      for (const ref of i.items) {
        if (i.remove) archive.removeTag(ref, i.tag);
        else archive.addTag(ref, i.tag);
      }
    },
    async 'library.tagQuery'(i) {
      return archive.tagQuery(i.query, i.tag);
    },
    async 'library.note'(i) {
      archive.setNote(i.item, i.note);
    },
    async 'library.override'(i) {
      if (i.clear) archive.clearOverride(i.item, i.family, i.field);
      else {
        // an override is a value the service itself could have given (issue 14 #4: no "banana")
        const spec = labelFieldSpec(i.family, i.field);
        const seen =
          spec?.type === 'text' && spec.seenOnly ? archive.labelDistribution({}, i.family, i.field).map((s) => s.bucket) : undefined;
        const problem = labelValueProblem(i.family, i.field, i.value, seen);
        if (problem) throw new AppError('validation', `Not a label value: ${problem}`);
        archive.overrideLabel(i.item, i.family, i.field, i.value);
      }
    },
    async 'library.watchlistId'(i) {
      return archive.watchlists.idByName(i.name) ?? null;
    },
    async 'library.saveResultSet'(i) {
      const rs = archive.saveResultSet(i.name, i.query, { note: i.note ?? null });
      return { id: rs.id };
    },
    async 'library.resultSets'() {
      return archive.listResultSets().map((r) => ({
        id: r.id,
        name: r.name,
        query: r.query,
        note: r.note,
        createdAt: r.createdAt,
        author: r.author,
        updatedAt: r.updatedAt,
      }));
    },
  };
}
