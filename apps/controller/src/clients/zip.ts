import { ZipFile } from 'yazl';

export interface ZipEntry {
  name: string;
  body: string;
}

/**
 * A zip of text files, built in memory (a client's profiles are a few KiB each). Entries are
 * 0600: they hold private keys, and unzip keeps the mode.
 */
export async function zipTextFiles(entries: readonly ZipEntry[], mtime: Date): Promise<Buffer> {
  const zip = new ZipFile();
  for (const entry of entries) zip.addBuffer(Buffer.from(entry.body, 'utf8'), entry.name, { mtime, mode: 0o100600 });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Makes file names unique within one archive. Profile names are already distinct in practice
 * (they carry a hash of device, host and interface names); a collision keeps the name at 15
 * characters before `.conf` (wg-quick's interface name limit) by replacing its tail with `_<n>`.
 */
export function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    let candidate = name;
    const stem = name.replace(/\.conf$/, '');
    for (let n = 2; seen.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = `${stem.slice(0, 15 - suffix.length)}${suffix}.conf`;
    }
    seen.add(candidate);
    return candidate;
  });
}
