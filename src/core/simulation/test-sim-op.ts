/**
 * One analyst action as a fast-check command over the contract (issue 24): it generates its
 * arguments, runs through the doors' dispatch, updates the reference model with what the analyst
 * asked for, and then every invariant is checked (test-sim-check.ts). Not shipped.
 */
import fc from 'fast-check';
import type { LibraryQueryAnswer } from '../../shared/contract-library';
import { checkAll } from './test-sim-check';
import type { SimEnv } from './test-sim-env';
import { count, type SimModel, type Target } from './test-sim-model';

export type SimCommand = fc.AsyncCommand<SimModel, SimEnv>;

/** One analyst action: its name and arguments (for the printed replay), a precondition, and a body. */
export class Op implements SimCommand {
  constructor(
    readonly name: string,
    readonly args: unknown,
    readonly body: (m: SimModel, env: SimEnv) => Promise<void>,
    readonly pre: (m: Readonly<SimModel>) => boolean = () => true,
  ) {}
  check(m: Readonly<SimModel>): boolean {
    return this.pre(m);
  }
  async run(m: SimModel, env: SimEnv): Promise<void> {
    m.stats.steps++;
    count(m.stats.ops, this.name);
    const t0 = Date.now();
    try {
      await this.body(m, env);
    } catch (e) {
      if (!m.stats.survey) throw e;
      // said at once too: a check that cannot run after it (a closed archive) ends the survey
      console.error(`simulation: op failed: ${this.toString()}: ${(e as Error).stack ?? String(e)}`);
      const kind = `op failed: ${this.name}: ${String((e as Error).message)
        .replace(/\d+/g, '#')
        .slice(0, 100)}`;
      (m.stats.survey[kind] ??= { n: 0, example: `${(e as Error).message} — ${this.toString()}` }).n++;
    }
    const t1 = Date.now();
    count(m.stats.opMs, this.name, t1 - t0);
    await checkAll(env, m, this.toString());
    count(m.stats.opMs, '(checks)', Date.now() - t1);
  }
  toString(): string {
    return `${this.name}(${JSON.stringify(this.args)})`;
  }
}

/** Watches the simulation follows: date-ordered feeds (one with `trim`) and searches. */
export const FEEDS: Target[] = [
  { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice.sim' } },
  { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'bruno.sim', trim: 'true' } },
  { platform: 'micro_net', endpoint: 'user/tweets', params: { handle: 'bob.sim' } },
  { platform: 'video_net', endpoint: 'channel/videos', params: { handle: 'carol.sim' } },
];
export const SEARCHES: Target[] = [
  { platform: 'forum_net', endpoint: 'search', params: { query: 'kettle' } },
  { platform: 'short_video_net', endpoint: 'search', params: { query: 'cake' } },
  { platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'grinder' } },
];
export const TARGETS = [...FEEDS, ...SEARCHES];

export const target = fc.constantFrom(...TARGETS);
/** an index into whatever exists when the op runs (lists, walks, items) */
export const pick = fc.nat({ max: 1000 });

export function nth<T>(m: Map<string, T>, i: number): T | undefined {
  const all = [...m.values()];
  return all.length === 0 ? undefined : all[i % all.length];
}

/** Items the analyst has in view: a page of the Library, newest first. */
export async function refreshItems(m: SimModel, env: SimEnv): Promise<void> {
  const page = await env.call<LibraryQueryAnswer>('library.query', { query: {}, limit: 60, lean: true });
  m.items = page.rows.map((r) => ({ platform: r.platform, kind: r.kind, id: r.id }));
}
