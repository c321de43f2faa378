/**
 * The network and endpoint pickers every view that starts from an endpoint uses (Search, Comments,
 * Profiles, Import accounts, Compare's profile): one select of networks, one of that network's
 * endpoints, each with its data-testid. The views choose which endpoints are offered and how an
 * option reads.
 */
import { useEffect, type ReactNode } from 'react';
import type { CatalogueEndpoint } from '../../../shared/api-types';
import { endpointPath } from '../lib/catalogue';
import { Field } from './cells';

export function NetworkSelect({
  value,
  platforms,
  onChange,
  testid,
  disabled,
  ariaLabel,
}: {
  value: string;
  platforms: readonly string[];
  onChange: (platform: string) => void;
  testid: string;
  disabled?: boolean;
  ariaLabel?: string;
}) {
  return (
    <select value={value} onChange={(e) => onChange(e.target.value)} aria-label={ariaLabel} data-testid={testid} disabled={disabled}>
      {platforms.map((p) => (
        <option key={p}>{p}</option>
      ))}
    </select>
  );
}

export interface EndpointOptions {
  /** what an option reads (default: the endpoint's path) */
  text?: (e: CatalogueEndpoint) => ReactNode;
  /** its tooltip (default: none) */
  title?: (e: CatalogueEndpoint) => string;
}

/** `value` is an endpoint path as endpointPath gives it ('' when none is chosen). */
export function EndpointSelect({
  value,
  endpoints,
  onChange,
  testid,
  text = endpointPath,
  title,
}: { value: string; endpoints: CatalogueEndpoint[]; onChange: (path: string) => void; testid: string } & EndpointOptions) {
  return (
    <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testid}>
      {endpoints.map((e) => (
        <option key={e.path} value={endpointPath(e)} title={title?.(e)}>
          {text(e)}
        </option>
      ))}
    </select>
  );
}

/** "Network" then "Endpoint" (or the view's word for it), as two labelled fields; testids `<prefix>-platform`, `<prefix>-endpoint`. */
export function NetworkEndpointPicker({
  prefix,
  platforms,
  platform,
  onPlatform,
  endpoints,
  endpoint,
  onEndpoint,
  endpointLabel = 'Endpoint',
  platformDisabled,
  ...options
}: {
  prefix: string;
  platforms: readonly string[];
  platform: string;
  onPlatform: (platform: string) => void;
  endpoints: CatalogueEndpoint[];
  endpoint: string;
  onEndpoint: (path: string) => void;
  endpointLabel?: string;
  platformDisabled?: boolean;
} & EndpointOptions) {
  return (
    <>
      <Field label="Network">
        <NetworkSelect
          value={platform}
          platforms={platforms}
          onChange={onPlatform}
          testid={`${prefix}-platform`}
          disabled={platformDisabled}
        />
      </Field>
      <Field label={endpointLabel}>
        <EndpointSelect value={endpoint} endpoints={endpoints} onChange={onEndpoint} testid={`${prefix}-endpoint`} {...options} />
      </Field>
    </>
  );
}

/**
 * When the chosen network is not among those offered, choose one: the sandbox's photo_net when
 * offered, else the first (nothing while none are offered).
 */
export function useDefaultPlatform(platforms: readonly string[], platform: string, choose: (platform: string) => void): void {
  useEffect(() => {
    if (platforms.length && !platforms.includes(platform)) choose(platforms.includes('photo_net') ? 'photo_net' : platforms[0]);
  }, [platforms, platform, choose]);
}
