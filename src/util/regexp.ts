/** `text` as a regular expression that matches exactly it: `.`, `(`, `$` and the rest escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
