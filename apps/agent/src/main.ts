/** `warren-agent`: the agent that runs on every tunnel host. A placeholder until issue 4 builds it. */
const USAGE = `Usage: warren-agent [--help]

warren-agent: not yet implemented; see issue 4 (the node agent: a BullMQ worker for its node's
queue, host drivers for WireGuard, nftables and ip rules, and a WebSocket link to the controller).
`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
process.stderr.write(USAGE);
process.exit(2);
