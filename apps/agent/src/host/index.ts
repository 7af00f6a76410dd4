/** The agent's host drivers: framework-free, wired into the agent's Nest modules elsewhere. */
export {
  CommandError,
  CommandRunner,
  errorText,
  type CommandFailure,
  type CommandRunnerOptions,
} from './command-runner.js';
export { probeHost, type HostProbe, type ProbeOptions } from './capabilities.js';
export { WireGuardHost, type DeltaOutcome, type WireGuardHostOptions } from './wireguard-host.js';
export { CounterReader, parseWgDump, type CounterReaderOptions, type PeerReading } from './counters.js';
export { readUapiCounters, UapiCounterParser } from './uapi-counters.js';
export { ApplyRecord, type AppliedRecord } from './apply-record.js';
