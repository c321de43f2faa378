import type { WalkInfo } from '../../../shared/contract';

/**
 * The page a walk continues from: its saved cursor's position + 1. After the service rejected the
 * saved position the walk started over and re-reads the pages it held (issue 24 #4): the position
 * (`rewalkAt`) is then below `pagesDone`, and resuming re-reads from there, not from pagesDone + 1.
 */
export function resumePage(w: Pick<WalkInfo, 'pagesDone' | 'rewalkAt'>): number {
  return (w.rewalkAt ?? w.pagesDone) + 1;
}
