/**
 * The node row moved to revisions/ (interfaces and accounts reference it, and they must not import
 * nodes/). Kept only so the other domains' imports resolve until they point at revisions/.
 */
export { Node } from '../revisions/node.entity.js';
