/** Cross-view hand-offs ("Comments…" from a drawer, "Open in Explorer"): the receiving view's side. */
import { useEffect } from 'react';
import { useUi, type UiState } from './ui';

type Handoffs = UiState['handoff'];

/** When another view hands this one something under `key`, `take` applies it once; then the hand-off is cleared. */
export function useTakeHandoff<K extends keyof Handoffs>(key: K, take: (h: NonNullable<Handoffs[K]>) => void): void {
  const handoff = useUi((u) => u.handoff[key]);
  const setHandoff = useUi((u) => u.setHandoff);
  useEffect(() => {
    if (!handoff) return;
    take(handoff);
    setHandoff({});
  }, [handoff, take, setHandoff]);
}
