import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/**
 * The start-up line saying where the panel is. Bound to all addresses (0.0.0.0 / ::), the loopback
 * URL alone does not help an operator on a remote server: the line names the URL(s) others reach it
 * on too, WARREN_PUBLIC_URL when set, otherwise one per non-loopback address of this host.
 */
export interface ListeningFacts {
  /** The URL the panel answers on from this host, with the base path, e.g. https://127.0.0.1:8443/. */
  localUrl: string;
  /** WARREN_HOST. */
  bindHost: string;
  port: number;
  basePath: string;
  publicUrl?: string;
  interfaces?: NodeJS.Dict<NetworkInterfaceInfo[]>;
}

function hostPart(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

export function listeningLine(facts: ListeningFacts): string {
  const { localUrl, bindHost, port, basePath } = facts;
  if (bindHost !== '0.0.0.0' && bindHost !== '::') return `warren: panel listening on ${localUrl}`;
  const scheme = new URL(localUrl).protocol;
  let network: string[];
  if (facts.publicUrl) {
    network = [`${facts.publicUrl.replace(/\/$/, '')}${basePath}/`];
  } else {
    const ipv4Only = bindHost === '0.0.0.0';
    network = Object.values(facts.interfaces ?? networkInterfaces())
      .flatMap((addresses) => addresses ?? [])
      .filter((a) => !a.internal && (ipv4Only ? a.family === 'IPv4' : true))
      .filter((a) => !a.address.toLowerCase().startsWith('fe80:')) // link-local: needs a zone, unusable in a URL
      .map((a) => `${scheme}//${hostPart(a.address)}:${port}${basePath}/`);
  }
  const everywhere = `${scheme}//${hostPart(bindHost)}:${port}${basePath}/`;
  const onNetwork = network.length > 0 ? `, on the network: ${network.join(' ')}` : '';
  return `warren: panel listening on ${everywhere} (from this machine: ${localUrl}${onNetwork})`;
}
