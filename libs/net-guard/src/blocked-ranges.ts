import { parseCidr, type Cidr } from '@tidemark/config';

/**
 * Addresses a user-given URL may not reach: loopback, private, link-local (cloud metadata at
 * 169.254.169.254), shared, documentation, benchmark, multicast and reserved ranges, in both
 * families. IPv4-mapped IPv6 addresses are checked as the IPv4 address they carry.
 */
export const BLOCKED_RANGES: Cidr[] = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  '::1/128',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
].map((c) => parseCidr(c)!);
