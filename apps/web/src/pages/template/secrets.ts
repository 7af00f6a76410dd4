/**
 * The template's secrets (docs/template.md): an interface's `privateKey`, an outbound's
 * `password`, `privateKey` and `presharedKey`. Only the owner's session gets them.
 */
const SECRET_FIELDS = new Set(['privateKey', 'password', 'presharedKey']);
const SECTIONS_WITH_SECRETS = new Set(['interfaces', 'outbounds']);
export const MASK = '••••••••';

/** The template as text, its secrets masked unless `reveal`, and how many secrets it holds. */
export function templateText(template: unknown, reveal: boolean): { text: string; secrets: number } {
  let secrets = 0;
  const masked = (section: string, value: unknown): unknown => {
    if (!SECTIONS_WITH_SECRETS.has(section) || !Array.isArray(value)) return value;
    return value.map((row: unknown) => {
      if (typeof row !== 'object' || row === null) return row;
      return Object.fromEntries(
        Object.entries(row).map(([field, text]) => {
          if (!SECRET_FIELDS.has(field) || typeof text !== 'string' || text === '') return [field, text];
          secrets++;
          return [field, reveal ? text : MASK];
        }),
      );
    });
  };
  const shown =
    typeof template === 'object' && template !== null
      ? Object.fromEntries(Object.entries(template).map(([section, value]) => [section, masked(section, value)]))
      : template;
  return { text: JSON.stringify(shown, null, 2), secrets };
}
