/**
 * Copies everything the test process writes to stdout and stderr (an in-process panel's log
 * lines included), still writing it. `text()` is what was written since `tapOutput()`;
 * `untap()` restores the streams.
 */
export interface OutputTap {
  text(): string;
  untap(): void;
}

export function tapOutput(): OutputTap {
  let written = '';
  const restore: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      written += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => (stream.write = write));
  }
  return { text: () => written, untap: () => restore.forEach((undo) => undo()) };
}

/** The JSON log lines in `text` (anything else, such as a plain start-up line, is skipped). */
export function jsonLines(text: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by another writer: not a log line
    }
  }
  return lines;
}
