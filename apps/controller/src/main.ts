import { loadConfigOrReport } from './config/config.js';
import { changePasswordHint } from './auth/owner-bootstrap.js';
import { listeningLine } from './listening-line.js';
import { startPanel } from './panel.js';

/** `npm start`: validate configuration, start the panel, print how to reach it. */
async function main(): Promise<void> {
  const config = loadConfigOrReport();
  if (!config) process.exit(2);
  const panel = await startPanel(config);
  const url = `${panel.origin}${config.basePath}/`;
  const origin = new URL(panel.origin);
  const port = Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80);
  const where = listeningLine({
    localUrl: url,
    bindHost: config.host,
    port,
    basePath: config.basePath,
    publicUrl: config.publicUrl,
  });
  console.log(`${where} (API: ${url}api/docs)`);
  if (panel.owner?.generatedPassword) {
    console.log(
      `warren: created the owner account. username: ${panel.owner.username}  password: ${panel.owner.generatedPassword}\n` +
        `warren: this password is shown only once; ${changePasswordHint(url)}`,
    );
  } else if (panel.owner) {
    console.log(
      `warren: created the owner account "${panel.owner.username}" from WARREN_ADMIN_USERNAME/WARREN_ADMIN_PASSWORD; ${changePasswordHint(url)}`,
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`warren: ${signal} received, shutting down`);
    panel.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // A closed terminal: the same orderly stop (its default would end the process at once, and the
  // embedded PostgreSQL, in a session of its own, would only get a last-resort SIGINT).
  process.on('SIGHUP', () => stop('SIGHUP'));
}

main().catch((error: unknown) => {
  console.error(`warren: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
