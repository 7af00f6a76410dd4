import type { QdiscFacts } from './shaping-plan.js';

/**
 * Reads `tc qdisc show` (every device's qdiscs, one line each: `qdisc <kind> <handle> dev <dev>
 * root|parent <id> …`) into what planInterface needs about a tunnel and its ifb. Every device
 * shows a root line (its default `noqueue`/`noop`/`pfifo_fast` 0: when nothing was set), so a
 * device with no line does not exist.
 */
export function qdiscFacts(output: string, tunnel: string, ifb: string): QdiscFacts {
  const facts: QdiscFacts = {
    tunnelRoot: false,
    tunnelHtb: false,
    tunnelIngress: false,
    ifbExists: false,
    ifbRoot: false,
    ifbHtb: false,
  };
  for (const line of output.split('\n')) {
    const m = /^qdisc (\S+) ([0-9a-f]+:) dev (\S+) (root|parent ffff:fff1)/.exec(line);
    if (!m) continue;
    const [, kind, handle, dev, where] = m;
    const root = where === 'root';
    const set = root && handle !== '0:';
    if (dev === tunnel) {
      if (set) facts.tunnelRoot = true;
      if (set && kind === 'htb' && handle === '1:') facts.tunnelHtb = true;
      if (kind === 'ingress') facts.tunnelIngress = true;
    } else if (dev === ifb) {
      facts.ifbExists = true;
      if (set) facts.ifbRoot = true;
      if (set && kind === 'htb' && handle === '1:') facts.ifbHtb = true;
    }
  }
  return facts;
}
