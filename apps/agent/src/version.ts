import { WARREN_VERSION } from '#libs/version/warren-version.js';

/** The agent ships in the same package as the controller: the package's version. */
export const AGENT_VERSION = WARREN_VERSION;
