import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The commit the build came from, and whether apps/ or libs/ had uncommitted changes in it. */
export function codeVersion() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean).length;
    return dirty
      ? `commit ${commit} with ${dirty} uncommitted file(s) under apps/ and libs/ (the working tree is shared with concurrent work)`
      : `commit ${commit} (apps/ and libs/ clean)`;
  } catch {
    return 'unknown (no git)';
  }
}
