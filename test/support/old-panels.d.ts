// Types of old-panels.js (plain JS: bench/ loads it without TypeScript).
export interface KeyPair {
  privateKey: string;
  publicKey: string;
}
export interface WgEasyClient {
  id: string;
  name: string;
  address: string;
  privateKey: string;
  publicKey: string;
  preSharedKey?: string;
  createdAt: string;
  updatedAt: string;
  enabled: boolean;
  expiredAt?: string | null;
}
export interface WgEasyFile {
  server: { privateKey: string; publicKey: string; address: string };
  clients: Record<string, WgEasyClient>;
}
export declare function keyPair(): KeyPair;
export declare function presharedKey(): string;
export declare function addressOf(prefix16: string, n: number): string;
export declare function wgEasyFile(
  count: number,
  prefix16?: string,
  options?: {
    server?: KeyPair;
    over?: (client: WgEasyClient, index: number) => void;
    namePrefix?: string;
    first?: number;
  },
): WgEasyFile;
export declare function wgEasyClientConfig(
  client: WgEasyClient,
  options: { serverPublicKey: string; host: string; port: number; dns?: string; mtu?: number; allowedIps?: string },
): string;
export declare function writeWgEasyDatabase(path: string, file: WgEasyFile): Promise<void>;
