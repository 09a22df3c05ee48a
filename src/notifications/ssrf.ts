import { isIP } from 'node:net';
import { invalidArgument } from '../errors.ts';

type Range = { base: bigint; prefix: number; name: string };

function ipv4ToBigInt(ip: string): bigint {
  return ip.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(octet), 0n);
}

/** Expects a valid IPv6 address without zone, as `isIP` accepts. */
function ipv6ToBigInt(ip: string): bigint {
  const groups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const v4 = Number(ipv4ToBigInt(group));
          return [v4 >>> 16, v4 & 0xffff];
        });
  const [head = '', tail] = ip.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
}

function ranges(bits: 32 | 128, table: [cidr: string, name: string][]): Range[] {
  return table.map(([cidr, name]) => {
    const [address = '', prefix = ''] = cidr.split('/');
    const base = bits === 32 ? ipv4ToBigInt(address) : ipv6ToBigInt(address);
    return { base, prefix: Number(prefix), name };
  });
}

function match(value: bigint, bits: 32 | 128, table: Range[]): Range | undefined {
  return table.find(
    ({ base, prefix }) => value >> BigInt(bits - prefix) === base >> BigInt(bits - prefix),
  );
}

// First match wins, so more specific ranges come first.
const ipv4Ranges = ranges(32, [
  ['0.0.0.0/32', 'unspecified'],
  ['0.0.0.0/8', 'reserved'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

/** IPv6 prefixes that embed an IPv4 address: such an address is as public as the one it embeds. */
const embeddingRanges = ranges(128, [
  ['::ffff:0:0/96', 'ipv4-mapped'],
  ['::/96', 'ipv4-compatible'],
  ['64:ff9b::/96', 'nat64'],
  ['2002::/16', '6to4'],
  ['2001::/32', 'teredo'],
]);

function embeddedIpv4(value: bigint, name: string): bigint {
  if (name === '6to4') return (value >> 80n) & 0xffffffffn;
  if (name === 'teredo') return ~value & 0xffffffffn; // the client address, stored inverted
  return value & 0xffffffffn;
}

const ipv6Ranges = ranges(128, [
  ['64:ff9b:1::/48', 'nat64 local-use'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['fc00::/7', 'unique-local'],
  ['ff00::/8', 'multicast'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'reserved'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'reserved'],
]);
const globalUnicast = ranges(128, [['2000::/3', 'global unicast']]);

function classifyIpv4(value: bigint): string | null {
  return match(value, 32, ipv4Ranges)?.name ?? null;
}

/**
 * The name of the special-purpose range `ip` lies in ("loopback", "private", "ipv4-mapped
 * loopback", ...), or null when it is a public unicast address. Anything that is not an IP
 * address is "invalid".
 */
export function classifyAddress(ip: string): string | null {
  const address = ip.split('%')[0] ?? '';
  const version = isIP(address);
  if (version === 4) return classifyIpv4(ipv4ToBigInt(address));
  if (version !== 6) return 'invalid';

  const value = ipv6ToBigInt(address);
  if (value === 0n) return 'unspecified';
  if (value === 1n) return 'loopback';
  const embedding = match(value, 128, embeddingRanges);
  if (embedding) {
    const range = classifyIpv4(embeddedIpv4(value, embedding.name));
    return range === null ? null : `${embedding.name} ${range}`;
  }
  return (
    match(value, 128, ipv6Ranges)?.name ?? (match(value, 128, globalUnicast) ? null : 'reserved')
  );
}

const MAX_URL_LENGTH = 2048;

/**
 * Checks a receiver URL at registration: absolute, https (http only with allowHttp), without
 * credentials, at most 2048 characters, and not an IP literal in a non-public range unless
 * allowPrivateNetworks. Host names are checked again on every connection, after resolution.
 * A broker's URL is checked alike with its kind's `schemes` (mqtts, and mqtt with allowHttp).
 */
export function validateReceiverUrl(
  url: unknown,
  options: { allowHttp: boolean; allowPrivateNetworks: boolean },
  schemes: { secure: string; plain: string } = { secure: 'https:', plain: 'http:' },
): URL {
  if (typeof url !== 'string') throw invalidArgument('url', 'url must be a string');
  if (url.length > MAX_URL_LENGTH) {
    throw invalidArgument('url', `url must be at most ${MAX_URL_LENGTH} characters`);
  }
  const parsed = URL.parse(url);
  if (parsed === null) throw invalidArgument('url', 'url must be an absolute URL');
  const { secure, plain } = schemes;
  if (parsed.protocol !== secure && !(options.allowHttp && parsed.protocol === plain)) {
    const name = (scheme: string) => scheme.slice(0, -1);
    throw invalidArgument(
      'url',
      options.allowHttp
        ? `url must use ${name(secure)} or ${name(plain)}`
        : `url must use ${name(secure)}`,
    );
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw invalidArgument('url', 'url must not contain a username or password');
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const range = options.allowPrivateNetworks || isIP(host) === 0 ? null : classifyAddress(host);
  if (range !== null) {
    throw invalidArgument('url', `url points to a non-public address (${range})`, { range });
  }
  return parsed;
}
