import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress } from '../ssrf.ts';
import { PublishError } from './types.ts';

/** What the delivery log says of a broker refused for a non-public address (as for webhooks). */
const BLOCKED_MESSAGE = 'blocked: non-public address';

/**
 * The address to connect to for a broker's `hostname`: an IP literal as it is, or the first
 * address the name resolves to. Unless `allowPrivateNetworks`, every address must be public
 * (ssrf.ts), as for a webhook receiver; the caller connects to the returned address, so the check
 * holds for the address actually connected (TLS then names `hostname` as the server).
 * Throws PublishError 'dns' when the name does not resolve, 'blocked_address' when refused.
 */
export async function resolvePublic(
  hostname: string,
  allowPrivateNetworks: boolean,
): Promise<string> {
  const host =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map(({ address }) => address);
    } catch (err) {
      throw new PublishError('dns', err instanceof Error ? err.message : String(err));
    }
  }
  const [first] = addresses;
  if (first === undefined) throw new PublishError('dns', `${host} has no address`);
  if (!allowPrivateNetworks && addresses.some((address) => classifyAddress(address) !== null))
    throw new PublishError('blocked_address', BLOCKED_MESSAGE);
  return first;
}
