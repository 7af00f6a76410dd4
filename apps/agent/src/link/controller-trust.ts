import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { isIP } from 'node:net';
import { pinOfDer } from '#libs/contracts/certificate-pin.js';
import { writeFileAtomic } from '#libs/files/atomic-file.js';

/** The pinned panel certificate, kept once checked so that later starts need no --pin. */
export const PINNED_CERTIFICATE_FILE = 'controller-cert.pem';

/**
 * What the agent trusts for the panel's TLS: `ca`, a PEM (an operator's --ca file, or the panel's
 * own certificate once it matched the pin); `anyName` when that certificate is trusted by its pin,
 * whatever names it carries (a self-made panel certificate names only the panel's own host names,
 * not the address a remote host dials).
 */
export interface ControllerTrust {
  ca: string;
  anyName: boolean;
}

/** The TLS options of every connection to the panel (enrolment and link). */
export function tlsOptions(trust: ControllerTrust | undefined): { ca?: string; checkServerIdentity?: () => undefined } {
  if (!trust) return {};
  // Only reached once the chain verified against `ca` itself: the name check is all that is skipped.
  return trust.anyName ? { ca: trust.ca, checkServerIdentity: () => undefined } : { ca: trust.ca };
}

/**
 * The trust for the panel at `controllerUrl`: the --ca file; else, with a pin, the certificate the
 * panel presents, checked against the pin on a connection that sends nothing (and kept in the data
 * directory); else a certificate pinned by an earlier start; else the system's CAs (undefined).
 */
export async function resolveControllerTrust(options: {
  caFile?: string;
  pin?: string;
  dataDir: string;
  controllerUrl?: string;
}): Promise<ControllerTrust | undefined> {
  if (options.caFile) return { ca: readFileSync(options.caFile, 'utf8'), anyName: false };
  const file = join(options.dataDir, PINNED_CERTIFICATE_FILE);
  if (options.pin) {
    if (!options.controllerUrl?.startsWith('https:')) throw new Error('--pin needs an https:// --controller');
    const ca = await fetchPinnedCertificate(options.controllerUrl, options.pin);
    writeFileAtomic(file, ca);
    return { ca, anyName: true };
  }
  if (existsSync(file)) return { ca: readFileSync(file, 'utf8'), anyName: true };
  return undefined;
}

/** Connects, compares the certificate the panel presents with the pin, hangs up; its PEM when it matches. */
export function fetchPinnedCertificate(controllerUrl: string, pin: string): Promise<string> {
  const target = new URL(controllerUrl);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = connect({
      host,
      port: Number(target.port || 443),
      ...(isIP(host) ? {} : { servername: host }),
      // Verified by the pin below, before a byte is written.
      rejectUnauthorized: false,
    });
    socket.setTimeout(15_000, () => socket.destroy(new Error(`no TLS answer from ${target.origin} within 15 s`)));
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const der = socket.getPeerCertificate().raw;
      socket.destroy();
      const presented = pinOfDer(der);
      if (presented !== pin) {
        reject(
          new Error(
            `the panel at ${target.origin} presents a certificate whose pin is ${presented}, not ${pin}: refusing to send it anything`,
          ),
        );
        return;
      }
      resolve(
        `-----BEGIN CERTIFICATE-----\n${der
          .toString('base64')
          .match(/.{1,64}/g)!
          .join('\n')}\n-----END CERTIFICATE-----\n`,
      );
    });
  });
}
