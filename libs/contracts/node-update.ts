import { z } from 'zod';
import { MAX_VERSION_TEXT } from './agent-link.js';
import { storableText } from './storable-text.js';

/**
 * A node update (`POST /api/nodes/{id}/update`): a job on the node's own queue telling its agent
 * to install the panel's package beside the running one, checksum verified, switch to it and
 * exit to be restarted by its launcher (bin/warren-agent-launcher), which rolls back when the new
 * agent does not link within the deadline (docs/agents.md, "Updating nodes").
 */
export const NODE_UPDATE_JOB = 'node-update';

/** Where an agent downloads the package, relative to `<base>/api/`: node credential required. */
export const AGENT_UPDATE_PACKAGE_PATH = 'agent/update/package.tgz';

/** Bounds of the link deadline: the new agent must link within it or its launcher switches back. */
export const MIN_LINK_DEADLINE_S = 10;
export const MAX_LINK_DEADLINE_S = 600;
export const DEFAULT_LINK_DEADLINE_S = 120;

export const nodeUpdateJobSchema = z.object({
  /** The package's version (its package.json), which the new agent will report. */
  version: storableText(MAX_VERSION_TEXT).min(1),
  /** SHA-256 of the package file, hex: a download that hashes otherwise is refused. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  linkDeadlineSeconds: z.number().int().min(MIN_LINK_DEADLINE_S).max(MAX_LINK_DEADLINE_S),
});
export type NodeUpdateJob = z.infer<typeof nodeUpdateJobSchema>;

/** What the agent's job returns once the new release is in place and `current` points at it. */
export const nodeUpdateResultSchema = z.object({
  from: storableText(MAX_VERSION_TEXT),
  to: storableText(MAX_VERSION_TEXT),
});
export type NodeUpdateResult = z.infer<typeof nodeUpdateResultSchema>;

/**
 * The install layout an updatable agent runs from (deploy/install-agent.sh makes it):
 * `<dir>/releases/<version>/` each a whole package with its node_modules, `<dir>/current` a
 * symlink to the running one, switched atomically (rename over it). The launcher exports the
 * directory to the agent in this variable; an agent without it cannot update itself.
 */
export const AGENT_INSTALL_DIR_ENV = 'WARREN_AGENT_INSTALL_DIR';
/** Files in the install directory that agent and launcher share (their only interface). */
export const UPDATE_FILES = {
  /** Written by the agent before it switches: `version=…`, `previous=…` (a release dir name), `deadline=…` (seconds). */
  pending: 'update-pending',
  /** Written by the agent when the panel welcomed it: the version it runs. */
  linked: 'linked',
} as const;
/** The agent's exit code after switching: its launcher starts `current` again at once. */
export const RESTART_EXIT_CODE = 75;
