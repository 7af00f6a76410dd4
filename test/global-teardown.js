// Stops what test/global-setup.js started (nothing when the machine's services were used).
export default async function globalTeardown() {
  for (const service of (globalThis.__warrenTestServices ?? []).reverse()) await service.stop();
}
