/**
 * Which atom a command is about. Commands are called from the tree (a node), the editor title (an
 * `atom:` URI), the palette (nothing) and other commands or tests (a name); this reads all of them the
 * same way, falling back to the active atom editor and then to a quick pick of the atoms.
 */
import * as vscode from 'vscode';
import type { Atom } from '../atoms/model.js';
import { formatSignature } from '../atoms/signature.js';
import type { AtomWorkspace } from '../workspace.js';
import { atomNameOf } from './atomFileSystem.js';
import type { AtomNode } from './atomTree.js';

/** An atom named by a command argument: a name, a tree node, or an `atom:` URI (editor title). */
export type AtomArg = string | AtomNode | vscode.Uri | undefined;

/** How an atom reads in the pick: its type and signature, its description below. */
function describeAtom(atom: Atom): Pick<vscode.QuickPickItem, 'description' | 'detail'> {
  return { description: `${atom.type} ${formatSignature(atom)}`, detail: atom.description ?? undefined };
}

/**
 * The atom's name: from the argument, else the active atom editor, else picked from the workspace's
 * atoms (undefined when the user cancels). The name is not checked: a history command may name an
 * atom that was deleted.
 */
export async function resolveAtomName(
  arg: AtomArg,
  workspace: AtomWorkspace,
  placeHolder: string,
  describe: (atom: Atom) => Pick<vscode.QuickPickItem, 'description' | 'detail'> = describeAtom,
): Promise<string | undefined> {
  const named = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? atomNameOf(arg) : arg?.kind === 'atom' ? arg.name : undefined;
  if (named) return named;
  const active = atomNameOf(vscode.window.activeTextEditor?.document.uri ?? vscode.Uri.parse('none:/'));
  if (active) return active;
  const picked = await vscode.window.showQuickPick(
    [...workspace.atoms.all()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((a) => ({ label: a.name, ...describe(a) })),
    { placeHolder, matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.label;
}
