import { promises as dns } from 'node:dns';
import net from 'node:net';

/** An address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (tests inject their own). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** Names that lead inside whatever network Quire runs in, whatever they resolve to. */
const FORBIDDEN_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'metadata.goog']);

/** [first address as a 32-bit number, prefix length] */
const FORBIDDEN_V4: ReadonlyArray<readonly [number, number]> = [
  [v4('0.0.0.0'), 8], // "this network", the unspecified address
  [v4('10.0.0.0'), 8],
  [v4('100.64.0.0'), 10], // carrier-grade NAT
  [v4('127.0.0.0'), 8],
  [v4('169.254.0.0'), 16], // link-local, cloud metadata (169.254.169.254)
  [v4('172.16.0.0'), 12],
  [v4('192.168.0.0'), 16],
  [v4('224.0.0.0'), 4], // multicast
  [v4('240.0.0.0'), 4], // reserved, broadcast
];

function v4(text: string): number {
  return text.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function inV4Range(address: number): boolean {
  return FORBIDDEN_V4.some(
    ([base, bits]) => Math.floor(address / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)),
  );
}

/** The sixteen bytes of an IPv6 address (a dotted IPv4 tail allowed). */
function v6Bytes(text: string): number[] {
  let head = text.toLowerCase().split('%')[0] ?? '';
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  if (dotted) {
    const n = v4(dotted[1]!);
    head = `${head.slice(0, -dotted[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const leftGroups = left ? left.split(':') : [];
  const rightGroups = right ? right.split(':') : [];
  const groups =
    right === undefined
      ? leftGroups
      : [
          ...leftGroups,
          ...Array<string>(8 - leftGroups.length - rightGroups.length).fill('0'),
          ...rightGroups,
        ];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

function embeddedV4(bytes: number[], at: number): number {
  return bytes.slice(at, at + 4).reduce((n, b) => n * 256 + b, 0);
}

function forbiddenV6(text: string): boolean {
  const b = v6Bytes(text);
  const zeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, with :: and ::1 among them): the IPv4 rule.
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return inV4Range(embeddedV4(b, 12));
  if (zeroUpTo(12)) return true;
  // 64:ff9b::/96 (NAT64) and 2002::/16 (6to4) carry an IPv4 address a gateway will reach.
  if (
    b[0] === 0x00 &&
    b[1] === 0x64 &&
    b[2] === 0xff &&
    b[3] === 0x9b &&
    b.slice(4, 12).every((x) => x === 0)
  ) {
    return inV4Range(embeddedV4(b, 12));
  }
  if (b[0] === 0x20 && b[1] === 0x02) return inV4Range(embeddedV4(b, 2));
  const first = b[0] ?? 0;
  const second = b[1] ?? 0;
  if ((first & 0xfe) === 0xfc) return true; // fc00::/7, unique local
  if (first === 0xfe && (second & 0xc0) === 0x80) return true; // fe80::/10, link-local
  if (first === 0xfe && (second & 0xc0) === 0xc0) return true; // fec0::/10, old site-local
  return first === 0xff; // multicast
}

/** Whether an IP address is loopback, private, link-local, unspecified, multicast or reserved. */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return inV4Range(v4(address));
  if (family === 6) return forbiddenV6(address);
  return true;
}

/** A URL's host without IPv6 brackets or a trailing dot, lower case. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

export function isForbiddenName(host: string): boolean {
  return FORBIDDEN_NAMES.has(host) || host.endsWith('.localhost');
}

/**
 * Why a host may not be sent to, or null when it may: a forbidden name, an IP literal in a forbidden
 * range, or a name any of whose addresses is. Names that do not resolve are refused too.
 */
export async function refusalOf(host: string, resolve: Resolver): Promise<string | null> {
  if (isForbiddenName(host)) return `names a host inside the network ('${host}')`;
  if (net.isIP(host) !== 0) {
    return isForbiddenAddress(host) ? 'names a loopback, private, link-local or reserved address' : null;
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    return `has a host that does not resolve ('${host}')`;
  }
  if (addresses.length === 0) return `has a host that does not resolve ('${host}')`;
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  return bad ? `resolves to a loopback, private, link-local or reserved address (${bad.address})` : null;
}
