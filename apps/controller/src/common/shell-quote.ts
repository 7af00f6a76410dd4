/**
 * One argument for a POSIX shell, single-quoted: nothing inside is expanded, and a quote in the
 * value ends the quoting, is escaped and reopens it. Every value in a command the panel prints
 * for people to run goes through this.
 */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
