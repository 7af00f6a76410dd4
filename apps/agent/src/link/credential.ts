import { join } from 'node:path';
import { AGENT_ENROL_PATH, enrolResponseSchema } from '#libs/contracts/agent-link.js';
import { AGENT_IDENTITY_FILE, type AgentIdentity } from '#libs/contracts/local-agent.js';
import { checkControllerUrl, type AgentConfig } from '../config.js';
import { readJsonFile, writeJsonAtomic } from '#libs/files/atomic-file.js';
import type { ControllerTrust } from './controller-trust.js';
import { postJson } from './https-json.js';

export type { AgentIdentity } from '#libs/contracts/local-agent.js';

export function identityFile(dataDir: string): string {
  return join(dataDir, AGENT_IDENTITY_FILE);
}

/** The panel address an earlier enrolment stored, if any. */
export function storedControllerUrl(dataDir: string): string | undefined {
  return readJsonFile<AgentIdentity>(identityFile(dataDir))?.controllerUrl;
}

/**
 * The stored identity, or a new one from enrolment. A new enrolment secret wins over a stored
 * identity (re-enrolling a host replaces its credential).
 */
export async function loadOrEnrol(config: AgentConfig, trust?: ControllerTrust): Promise<AgentIdentity> {
  const file = identityFile(config.dataDir);
  const stored = readJsonFile<AgentIdentity>(file);
  if (!config.enrolSecret) {
    if (!stored)
      throw new Error('not enrolled: start once with --controller URL --enrol SECRET (from the node in the panel)');
    const identity = config.controllerUrl ? { ...stored, controllerUrl: config.controllerUrl } : stored;
    checkControllerUrl(
      identity.controllerUrl,
      config.allowInsecureHttp,
      config.controllerUrl ? 'WARREN_CONTROLLER_URL' : file,
    );
    return identity;
  }
  const controllerUrl = config.controllerUrl ?? stored?.controllerUrl;
  if (!controllerUrl) throw new Error('--enrol needs --controller URL');
  checkControllerUrl(controllerUrl, config.allowInsecureHttp, config.controllerUrl ? 'WARREN_CONTROLLER_URL' : file);
  const response = await postJson(`${controllerUrl}${AGENT_ENROL_PATH}`, { secret: config.enrolSecret }, { trust });
  if (response.status !== 200 && response.status !== 201) {
    const error = (response.body as { error?: string } | undefined)?.error ?? `HTTP ${response.status}`;
    // The stored identity may still be good (the secret was already used by this host).
    if (stored && response.status === 401) return stored;
    throw new Error(`enrolment refused: ${error}`);
  }
  const enrolled = enrolResponseSchema.parse(response.body);
  const identity: AgentIdentity = { ...enrolled, controllerUrl };
  writeJsonAtomic(file, identity);
  return identity;
}
