/**
 * Pictures from other hosts (avatars, thumbnails: any https address a stranger's record names).
 * Fetching one tells that host what the analyst is reading, so with the `remoteImages` setting at
 * `on-request` (the default) nothing is fetched until asked: a button names the host, and one
 * click loads it (issue 27 #19). The CSP is unchanged: it already allows https images only.
 */
import { useState } from 'react';
import { useSettings } from '../queries/hooks';

/** Whether pictures load at once (the setting says `always`), else only on request. */
export function useRemoteImagesAtOnce(): boolean {
  return useSettings().data?.remoteImages === 'always';
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'another site';
  }
}

/** One picture: shown at once under `always`, else behind a button naming its host. */
export function RemotePicture({ src, alt, testid }: { src: string; alt: string; testid: string }) {
  const atOnce = useRemoteImagesAtOnce();
  const [asked, setAsked] = useState(false);
  const [failed, setFailed] = useState(false);
  if (failed) return null;
  if (!atOnce && !asked) {
    return (
      <button
        type="button"
        className="btn small ghost remote-picture"
        onClick={() => setAsked(true)}
        title={`Loads ${src}: that site learns you looked. Settings → Privacy loads pictures at once.`}
        data-testid={`${testid}-load`}
      >
        Show picture
        <br />
        <span className="muted small">from {hostOf(src)}</span>
      </button>
    );
  }
  return <img src={src} alt={alt} referrerPolicy="no-referrer" onError={() => setFailed(true)} data-testid={testid} />;
}
