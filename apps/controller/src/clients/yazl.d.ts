// The part of yazl (no bundled types) that zip.ts uses.
declare module 'yazl' {
  import type { Readable } from 'node:stream';

  export interface ZipEntryOptions {
    mtime?: Date;
    mode?: number;
    compress?: boolean;
    compressionLevel?: number;
  }

  export class ZipFile {
    readonly outputStream: Readable;
    addBuffer(buffer: Buffer, metadataPath: string, options?: ZipEntryOptions): void;
    end(): void;
  }
}
