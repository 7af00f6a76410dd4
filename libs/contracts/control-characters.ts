/**
 * The one definition of a control character for values that end up in a file another program
 * parses line by line (profiles, node configs): C0 and C1 controls, DEL, and the Unicode line and
 * paragraph separators. The renderers refuse them (libs/files/config-value.ts); what a node runs
 * is checked with the same pattern where it enters (API, job schema), so nothing is accepted that
 * the node could then not write.
 */
export const CONTROL_CHARACTER = /[\p{Cc}\u2028\u2029]/u;
