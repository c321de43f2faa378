/**
 * The contract's `collect.*` methods (docs/collect.md): collection plans, over the collect service
 * of the composed app (src/core/collect), built on first use with the app's parts.
 */
import { createCollectService, type CollectService } from '../collect';
import type { AppParts, Slice } from './parts';

export interface CollectJob {
  methods: Slice<'collect'>;
  service(): CollectService;
  stop(): Promise<void>;
}

export function createCollect(parts: AppParts): CollectJob {
  let svc: CollectService | null = null;
  const service = (): CollectService =>
    (svc ??= createCollectService({
      api: parts.api,
      archive: parts.archive,
      clock: parts.clock,
      emit: (e) => parts.emit(e),
      askAboveCredits: () => parts.settingsFile.read().app.askAboveCredits,
    }));
  return {
    service,
    methods: {
      'collect.preview': (i) => service().preview(i),
      'collect.create': (i) => service().create(i),
      'collect.run': (i) =>
        service().run(i.id, { approved: i.approved, wait: i.wait, ...(i.budget !== undefined ? { budget: i.budget } : {}) }),
      'collect.cancel': (i) => service().cancel(i.id),
      'collect.get': async (i) => service().get(i.id),
      'collect.list': async () => service().list(),
      'collect.inputs': async (i) => service().inputs(i.id, { states: i.state, offset: i.offset, limit: i.limit }),
      'collect.remove': async (i) => service().remove(i.id),
    },
    async stop() {
      await svc?.close();
    },
  };
}
