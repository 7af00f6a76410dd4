import { createHash, X509Certificate } from 'node:crypto';

/**
 * A certificate pin as enrolment commands print it and agents check it: `sha256:` and the hex
 * SHA-256 of the certificate's DER (what `openssl x509 -noout -fingerprint -sha256` shows, without
 * colons), as kubeadm's join carries its CA's hash. It lets an agent trust a self-signed panel
 * from the command alone, before anything is sent to it.
 */
export const PIN_PATTERN = /^sha256:[0-9a-f]{64}$/;

export function pinOfDer(der: Buffer): string {
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

export function pinOfPem(pem: string): string {
  return pinOfDer(new X509Certificate(pem).raw);
}

/** curl's `--pinnedpubkey` form of a certificate's key: `sha256//` and the base64 SHA-256 of its SPKI DER. */
export function publicKeyPinOfPem(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256//${createHash('sha256').update(spki).digest('base64')}`;
}
