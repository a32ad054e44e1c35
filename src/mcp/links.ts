/**
 * Resource links (`resource_link` content) after a tool's text: the atoms an upsert saved or a read
 * returned, as `atom://{name}`, so a client can offer to open them. The text item stays first and
 * unchanged (the contract's text); the links follow it, only when the call succeeded.
 *
 * VS Code shows each link as a reference under the tool call and also tells the model one line per link
 * ("The tool returns a resource which can be read from the URI …"), so a large batch gets links for its
 * first MAX_LINKS atoms only.
 */
import type { ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import { atomUri } from './resources.js';

export const MAX_LINKS = 20;

/** The atom names a successful call's answer is about, by tool; tools not named here add no links. */
const LINKED: Readonly<Record<string, (args: Record<string, unknown>) => unknown[]>> = {
  upsert_atom: (args) => [args.name],
  upsert_atoms: (args) => (Array.isArray(args.atoms) ? args.atoms.map((a) => (a as { name?: unknown })?.name) : []),
  read_atoms: (args) => (Array.isArray(args.names) ? args.names : []),
};

export function resourceLinks(tool: string, args: Record<string, unknown>): ResourceLink[] {
  const names = LINKED[tool]?.(args) ?? [];
  const unique = [...new Set(names.filter((n): n is string => typeof n === 'string' && n.length > 0))];
  return unique.slice(0, MAX_LINKS).map((name) => ({ type: 'resource_link', uri: atomUri(name), name, mimeType: 'text/javascript' }));
}
