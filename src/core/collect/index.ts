/**
 * Collection plans (issue 28, docs/collect.md): a list or a saved set in, every input mapped to its
 * calls and priced as one plan before anything is spent, then a resumable run over the key pool
 * whose results become a saved set.
 *
 *   const collect = createCollectService({ api, archive, clock, emit, askAboveCredits });
 *   const plan = await collect.create({ name: 'Shoes', source: { type: 'text', text }, do: 'search', networks: ['micro_net'], pages: 2, … });
 *   const status = await collect.run(plan.id, { approved: true });
 *
 * Another caller with calls of its own (endpoint + params + pages) hands them over as
 * `source: { type: 'calls', calls }` and gets the same pricing and run.
 */
export { createCollectService, type CollectService, type CollectServiceOptions } from './service';
export { makePlan, MAX_LINES, type PlanDeps, type PlanMade } from './plan';
export { sourceOf } from './status';
export { paramOf, POST_ID_PARAMS, POST_URL_PARAMS, targetFor } from './targets';
