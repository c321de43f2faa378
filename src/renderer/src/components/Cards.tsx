/** Card view for media-heavy feeds (reels, videos): thumbnail, text, author, engagement, labels. */
import { useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { LibraryListRow } from '../../../shared/contract';
import { displayAuthor, displayText, labelChips } from '../lib/records';
import { safeHttpUrl, truncate } from '../lib/format';
import { useUi } from '../stores/ui';
import { Chips, Num, RelBar, When } from './cells';
import { useRemoteImagesAtOnce } from './RemoteImage';

const COLS = 4;

export function Cards({
  rows,
  hasMore,
  onLoadMore,
  fetchingMore,
}: {
  rows: LibraryListRow[];
  hasMore?: boolean;
  onLoadMore?: () => void;
  fetchingMore?: boolean;
}) {
  const openDrawer = useUi((s) => s.openDrawer);
  const ref = useRef<HTMLDivElement>(null);
  const lines = Math.ceil(rows.length / COLS);
  const atOnce = useRemoteImagesAtOnce();
  const [asked, setAsked] = useState(false);
  const pictures = atOnce || asked;
  const anyThumb = !pictures && rows.some((r) => safeHttpUrl(r.thumbnailUrl));
  const virt = useVirtualizer({ count: lines, getScrollElement: () => ref.current, estimateSize: () => 292, overscan: 2 });
  return (
    <>
      {anyThumb ? (
        <div className="row gap small muted">
          Thumbnails come from other sites, which learn what you look at.
          <button type="button" className="btn small" onClick={() => setAsked(true)} data-testid="cards-load-pictures">
            Show thumbnails
          </button>
        </div>
      ) : null}
      <div className="cards-scroll" ref={ref} data-testid="results-cards">
        <div style={{ height: virt.getTotalSize(), position: 'relative' }}>
          {virt.getVirtualItems().map((vi) => (
            <div key={vi.index} className="card-line" style={{ transform: `translateY(${vi.start}px)` }}>
              {rows.slice(vi.index * COLS, vi.index * COLS + COLS).map((r) => {
                const thumb = safeHttpUrl(r.thumbnailUrl);
                return (
                  <button
                    key={r.id}
                    className="card"
                    data-testid="result-card"
                    onClick={() => openDrawer({ platform: r.platform, kind: r.kind, id: r.id })}
                  >
                    <div className="card-media">
                      {thumb && pictures ? (
                        <img
                          src={thumb}
                          alt=""
                          loading="lazy"
                          referrerPolicy="no-referrer"
                          onError={(e) => (e.currentTarget.style.visibility = 'hidden')}
                        />
                      ) : null}
                      <span className="card-kind">{r.kind}</span>
                    </div>
                    <div className="card-body">
                      <div className="card-text" dir="auto">
                        {truncate(displayText(r), 140) || <span className="muted">(no text)</span>}
                      </div>
                      <div className="card-meta">
                        <bdi className="ellipsis">@{displayAuthor(r) || '—'}</bdi>
                        <When v={r.publishedAt} />
                      </div>
                      <div className="card-meta">
                        <span title="views">
                          ▶ <Num v={r.engagement.views} />
                        </span>
                        <span title="likes">
                          ♥ <Num v={r.engagement.likes} />
                        </span>
                        <span title="comments">
                          💬 <Num v={r.engagement.comments} />
                        </span>
                      </div>
                      <Chips chips={labelChips(r)} max={3} />
                      {r.relevance !== null ? <RelBar p={r.relevance} /> : null}
                    </div>
                  </button>
                );
              })}
            </div>
          ))}
        </div>
        {hasMore && onLoadMore ? (
          <div className="load-more">
            <button className="btn small" onClick={onLoadMore} disabled={fetchingMore}>
              {fetchingMore ? 'Loading…' : 'Load more'}
            </button>
          </div>
        ) : null}
      </div>
    </>
  );
}
