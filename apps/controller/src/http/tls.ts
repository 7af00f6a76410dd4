import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { WarrenConfig } from '../config/config.js';

export interface TlsMaterial {
  cert: string;
  key: string;
  selfSigned: boolean;
  /** The certificate's file (the local agent trusts exactly this one). */
  certFile: string;
}

/**
 * The certificate the panel serves: the operator's files when given, otherwise a self-signed
 * one made on the first start and kept in `<dataDir>/tls` so browsers see the same one later.
 */
export async function loadTls(config: WarrenConfig): Promise<TlsMaterial | undefined> {
  if (!config.tls.enabled) return undefined;
  if (config.tls.certFile && config.tls.keyFile) {
    return {
      cert: readFileSync(config.tls.certFile, 'utf8'),
      key: readFileSync(config.tls.keyFile, 'utf8'),
      selfSigned: false,
      certFile: config.tls.certFile,
    };
  }
  const dir = join(config.dataDir, 'tls');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = hostname();
    const pems = await generate([{ name: 'commonName', value: name }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 3600_000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: name },
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    writeFileSync(keyFile, pems.private, { mode: 0o600 });
    writeFileSync(certFile, pems.cert, { mode: 0o644 });
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), selfSigned: true, certFile };
}
