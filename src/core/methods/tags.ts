/** The contract's `tags.*` methods (issue 27 #7): the archive's tag management (src/core/archive/tags.ts). */
import type { Archive } from '../archive';
import type { Slice } from './parts';

export function tagMethods(archive: Archive): Slice<'tags'> {
  return {
    async 'tags.list'() {
      return archive.tags.list();
    },
    async 'tags.rename'(i) {
      return archive.tags.rename(i.tag, i.to, i.dryRun);
    },
    async 'tags.merge'(i) {
      return archive.tags.merge(i.from, i.into, i.dryRun);
    },
    async 'tags.delete'(i) {
      return archive.tags.delete(i.tag, i.dryRun);
    },
    async 'tags.color'(i) {
      return archive.tags.color(i.tag, i.color);
    },
  };
}
