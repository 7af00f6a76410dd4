/**
 * Orders two versions by their dotted numbers (1.10.0 after 1.9.2); a pre-release tag
 * (`1.2.0-rc.1`) sorts before its release. Anything that is not numbers compares as equal, so
 * an odd version string never raises a warning on its own.
 */
export function compareVersions(a: string, b: string): number {
  const parse = (text: string) => {
    const match = /^v?(\d+)\.(\d+)\.(\d+)(-.+)?$/.exec(text.trim());
    return match
      ? { parts: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] !== undefined }
      : null;
  };
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return 0;
  for (let i = 0; i < 3; i++) {
    if (left.parts[i] !== right.parts[i]) return left.parts[i] - right.parts[i];
  }
  return Number(right.pre) - Number(left.pre);
}

export type VersionSkew = 'same' | 'older' | 'newer' | 'different';

/**
 * How an agent's version stands against the panel's: the one rule the node probe's warning and
 * the security warning "agents older than the panel" both read (with the panel's WARREN_VERSION),
 * so they never disagree. `different`: not the same text, and not comparable as numbers.
 */
export function versionSkew(agentVersion: string, panelVersion: string): VersionSkew {
  if (agentVersion.trim() === panelVersion.trim()) return 'same';
  const order = compareVersions(agentVersion, panelVersion);
  return order < 0 ? 'older' : order > 0 ? 'newer' : 'different';
}
