// Outgoing requests to customer-supplied URLs: only http(s), and (unless WEBHOOK_ALLOW_PRIVATE_NETWORKS) only
// public unicast addresses. The check runs on the resolved addresses, and the connection uses the checked
// address (guardedLookup), so DNS rebinding cannot slip a private address in between.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Errors } from '../errors.ts';

/** True for any address that is not public unicast: loopback, private, link-local (cloud metadata), ULA, CGNAT… */
export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6;
    if (ipv6.isIPv4MappedAddress()) parsed = ipv6.toIPv4Address();
    // IPv4-compatible (::/96, deprecated; `[::127.0.0.1]`): ipaddr.js calls it unicast, some stacks route it to IPv4.
    else if (ipv6.parts.slice(0, 6).every((part) => part === 0)) return true;
  }
  return parsed.range() !== 'unicast';
}

/** Parses an outgoing URL (webhook, model server): http or https, no user:password part. */
export function parseWebhookUrl(raw: string, field = 'webhookUrl'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw Errors.webhookUrlInvalid(field);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || !url.hostname) {
    throw Errors.webhookUrlInvalid(field);
  }
  return url;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export interface UrlGuard {
  /** Validates a URL a customer saves (in the setting `field`): scheme, and every address its host resolves to. */
  check(raw: string, field?: string, options?: { allowUnresolvable?: boolean }): Promise<URL>;
  /** `lookup` for outgoing connections: resolves, refuses forbidden addresses, connects to what it checked. */
  lookup: LookupFunction;
  allowPrivateNetworks: boolean;
}

export function createUrlGuard({ allowPrivateNetworks }: { allowPrivateNetworks: boolean }): UrlGuard {
  const lookup: LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const forbidden = allowPrivateNetworks ? undefined : addresses.find((a) => isForbiddenAddress(a.address));
      if (forbidden) {
        const refused = Object.assign(new Error(`refused to connect to ${forbidden.address} (private network)`), {
          code: 'EPRIVATEADDRESS',
        });
        return callback(refused, '', 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      return callback(null, first.address, first.family);
    });
  };

  return {
    allowPrivateNetworks,
    lookup,
    async check(raw, field = 'webhookUrl', { allowUnresolvable = false } = {}) {
      const url = parseWebhookUrl(raw, field);
      if (allowPrivateNetworks) return url;
      const host = bareHost(url);
      if (ipaddr.isValid(host)) {
        if (isForbiddenAddress(host)) throw Errors.webhookUrlPrivate(host, field);
        return url;
      }
      let addresses: dns.LookupAddress[];
      try {
        addresses = await dns.promises.lookup(host, { all: true });
      } catch {
        if (allowUnresolvable) return url; // every connection is checked again (lookup)
        throw Errors.webhookUrlUnresolvable(host, field);
      }
      const forbidden = addresses.find((a) => isForbiddenAddress(a.address));
      if (forbidden) throw Errors.webhookUrlPrivate(forbidden.address, field);
      return url;
    },
  };
}

/** Whether a URL's host is an IP literal that the guard forbids (literals never reach `lookup`). */
export function isForbiddenLiteral(url: URL): boolean {
  const host = bareHost(url);
  return ipaddr.isValid(host) && isForbiddenAddress(host);
}
