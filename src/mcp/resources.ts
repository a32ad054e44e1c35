/**
 * Resources: each atom as `atom://{name}` (a template with completion), the structure as
 * `atoms://structure`, and the bundle as `atoms://bundle`. Subscribers hear when one changes, once
 * per turn however many atoms a batch changed. The list itself (the structure and the bundle) never
 * changes: atoms are reached through the template, so atoms coming and going send no `list_changed`
 * (it had every client fetch the same two-entry list again after each write).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { BundleUnavailable } from '../bundle/builder.js';
import type { Disposable } from '../util/event.js';
import type { AtomWorkspace } from '../workspace.js';
import { isAppUri, readApp } from './apps.js';
import { formatAtom, toStructure } from './format.js';

export const STRUCTURE_URI = 'atoms://structure';
export const BUNDLE_URI = 'atoms://bundle';
export const ATOM_TEMPLATE = 'atom://{name}';
const ATOM_PREFIX = 'atom://';
const MAX_COMPLETIONS = 100;

export const RESOURCE_CAPABILITIES = { subscribe: true, listChanged: false } as const;

export function atomUri(name: string): string {
  return `${ATOM_PREFIX}${name}`;
}

export function registerResources(server: Server, opening: Promise<AtomWorkspace>): Disposable {
  const subscriptions = new Set<string>();

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [
      {
        uri: STRUCTURE_URI,
        name: 'structure',
        title: 'Atom structure',
        description: 'Every atom with its type, typed ports and dependencies (the get_code_structure JSON)',
        mimeType: 'application/json',
      },
      {
        uri: BUNDLE_URI,
        name: 'bundle',
        title: 'Bundle (latest.js)',
        description: 'The current bundle: all atoms, dependencies first, as the live preview runs it',
        mimeType: 'text/javascript',
      },
    ],
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: ATOM_TEMPLATE,
        name: 'atom',
        title: 'Atom',
        description: 'One atom: metadata header and code, as read_atoms shows it',
        mimeType: 'text/javascript',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    // The MCP Apps' pages (apps.ts), read by the hosts that render a tool's app.
    if (isAppUri(uri)) return readApp(uri);
    const workspace = await opening;
    if (uri === STRUCTURE_URI) {
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(workspace.atoms.all().map(toStructure), null, 2) }] };
    }
    if (uri === BUNDLE_URI) {
      // Only ever the bundle the builder writes: never a file the output path setting points at
      // (outside the workspace, or not a bundle). BundleUnavailable's message says why and what to do.
      let text: string;
      try {
        text = workspace.builder.readBundle();
      } catch (err) {
        if (err instanceof BundleUnavailable) throw new McpError(ErrorCode.InvalidParams, err.message);
        throw err;
      }
      return { contents: [{ uri, mimeType: 'text/javascript', text }] };
    }
    if (uri.startsWith(ATOM_PREFIX)) {
      const name = decodeURIComponent(uri.slice(ATOM_PREFIX.length));
      const atom = workspace.atoms.get(name);
      if (!atom) throw new McpError(ErrorCode.InvalidParams, `Atom "${name}" not found. Check the name with get_code_structure.`);
      return { contents: [{ uri, mimeType: 'text/javascript', text: formatAtom(atom) }] };
    }
    throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}: use ${STRUCTURE_URI}, ${BUNDLE_URI} or ${ATOM_TEMPLATE}`);
  });

  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument } = request.params;
    if (ref.type !== 'ref/resource' || ref.uri !== ATOM_TEMPLATE || argument.name !== 'name') {
      return { completion: { values: [], total: 0, hasMore: false } };
    }
    const prefix = argument.value;
    const workspace = await opening;
    const matches = workspace.atoms.all().filter((a) => a.name.startsWith(prefix)).map((a) => a.name);
    return { completion: { values: matches.slice(0, MAX_COMPLETIONS), total: matches.length, hasMore: matches.length > MAX_COMPLETIONS } };
  });

  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  // What changed, told once per turn: a batch of 50 atoms announces 50 changes, and each
  // notification went through the SDK's checks of an outgoing message (~16 KB of garbage each, 5.7%
  // of what an agent's batches allocated at 10,000 atoms) to say the same thing 50 times.
  const pending = new Set<string>();
  let flush: NodeJS.Immediate | undefined;
  const updated = (uri: string) => {
    if (!subscriptions.has(uri)) return;
    pending.add(uri);
    flush ??= setImmediate(() => {
      flush = undefined;
      for (const uri of pending) server.sendResourceUpdated({ uri }).catch(() => {});
      pending.clear();
    });
  };
  let disposed = false;
  const listeners: Disposable[] = [];
  opening.then(
    (workspace) => {
      if (disposed) return;
      listeners.push(
        workspace.onDidChange((change) => {
          if (change.kind === 'reload') {
            for (const uri of subscriptions) updated(uri);
            return;
          }
          updated(atomUri(change.atom.name));
          updated(STRUCTURE_URI);
        }),
        workspace.builder.onDidBuild(() => updated(BUNDLE_URI)),
      );
    },
    () => {},
  );
  return {
    dispose() {
      disposed = true;
      for (const l of listeners.splice(0)) l.dispose();
      subscriptions.clear();
      if (flush) clearImmediate(flush);
      flush = undefined;
      pending.clear();
    },
  };
}
