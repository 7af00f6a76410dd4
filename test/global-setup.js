// Runs once before all suites (loaded by Node's own loader: plain JS, no TypeScript, no mapper).
export default async function globalSetup() {}
