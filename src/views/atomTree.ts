/**
 * The atom explorer: atoms grouped by type, each showing its signature; an atom's children are its
 * dependencies (themselves expandable, so the whole dependency chain can be walked). Rebuilt from the
 * store on every change, whoever made it (an MCP client, an editor save, a command).
 */
import * as vscode from 'vscode';
import { ATOM_TYPES, type Atom, type AtomType } from '../atoms/model.js';
import { checksVerdict, type CheckResult } from '../atoms/checks.js';
import { formatSignature } from '../atoms/signature.js';
import { atomUri } from './atomFileSystem.js';
import { Commands } from './commandIds.js';

export type AtomNode =
  | { kind: 'group'; type: AtomType }
  | { kind: 'atom'; name: string; parentPath: string };

/** What the tree reads: the atoms as they are now (undefined while no store is open). */
export interface CurrentAtoms {
  atoms(): readonly Atom[] | undefined;
  get(name: string): Atom | undefined;
  /** The latest results of the atom's checks (examples, or the test atom itself); empty when none ran. */
  checks?(name: string): readonly CheckResult[];
}

export const TYPE_ICONS: Record<AtomType, { icon: string; color: string }> = {
  core: { icon: 'pulse', color: 'charts.red' },
  feature: { icon: 'sparkle', color: 'charts.blue' },
  util: { icon: 'tools', color: 'charts.green' },
  test: { icon: 'beaker', color: 'charts.purple' },
};

const TYPE_TITLES: Record<AtomType, string> = {
  core: 'Core: entry points, game loop',
  feature: 'Features: mechanics, player-facing logic',
  util: 'Utilities: helpers, configs, pure functions',
  test: 'Tests: scenarios that check the other atoms (never bundled)',
};

export class AtomTreeProvider implements vscode.TreeDataProvider<AtomNode> {
  private readonly changed = new vscode.EventEmitter<AtomNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly current: CurrentAtoms) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: AtomNode): AtomNode[] {
    const atoms = this.current.atoms();
    if (!atoms) return [];
    if (!node) {
      return ATOM_TYPES.filter((type) => atoms.some((a) => a.type === type)).map((type) => ({ kind: 'group', type }));
    }
    if (node.kind === 'group') {
      return atoms
        .filter((a) => a.type === node.type)
        .map((a) => a.name)
        .sort()
        .map((name) => ({ kind: 'atom', name, parentPath: node.type }));
    }
    const atom = this.current.get(node.name);
    const path = `${node.parentPath}/${node.name}`;
    return (atom?.dependencies ?? []).map((name) => ({ kind: 'atom', name, parentPath: path }));
  }

  getParent(node: AtomNode): AtomNode | undefined {
    if (node.kind === 'group') return undefined;
    const parts = node.parentPath.split('/');
    if (parts.length === 1) return { kind: 'group', type: parts[0] as AtomType };
    return { kind: 'atom', name: parts[parts.length - 1]!, parentPath: parts.slice(0, -1).join('/') };
  }

  getTreeItem(node: AtomNode): vscode.TreeItem {
    if (node.kind === 'group') {
      const count = this.current.atoms()?.filter((a) => a.type === node.type).length ?? 0;
      const item = new vscode.TreeItem(node.type, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `group:${node.type}`;
      item.description = `${count}`;
      item.tooltip = TYPE_TITLES[node.type];
      item.iconPath = new vscode.ThemeIcon(TYPE_ICONS[node.type].icon, new vscode.ThemeColor(TYPE_ICONS[node.type].color));
      item.contextValue = 'group';
      return item;
    }
    const atom = this.current.get(node.name);
    const isDependency = node.parentPath.includes('/');
    const hasChildren = (atom?.dependencies.length ?? 0) > 0;
    const item = new vscode.TreeItem(node.name, hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `atom:${node.parentPath}/${node.name}`;
    item.resourceUri = atomUri(node.name);
    item.contextValue = isDependency ? 'dependency' : 'atom';
    if (!atom) {
      item.description = 'missing';
      item.iconPath = new vscode.ThemeIcon('warning');
      return item;
    }
    const style = TYPE_ICONS[atom.type];
    item.iconPath = new vscode.ThemeIcon(style.icon, new vscode.ThemeColor(style.color));
    item.description = formatSignature(atom);
    const tooltip = atomTooltip(atom);
    item.tooltip = tooltip;
    // A failing check is never silent: a red icon and the count before the signature, the messages in the tooltip.
    const results = this.current.checks?.(node.name) ?? [];
    const summary = checksVerdict(results);
    if (summary) {
      item.description = summary.ok ? `${item.description}  ${summary.text}` : `${summary.text} \u00b7 ${item.description}`;
      if (!summary.ok) item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
      tooltip.appendMarkdown(`\n\n**Checks:** ${summary.text}\n`);
      for (const r of results.filter((c) => !c.ok)) tooltip.appendText(`\n\u2717 ${r.message ?? r.label}\n`);
    }
    item.command = { command: Commands.openAtom, title: 'Open Atom', arguments: [node.name] };
    return item;
  }
}

export function atomTooltip(atom: Atom): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${atom.name}** \u2014 ${atom.type}, version ${atom.version}\n\n`);
  if (atom.description) md.appendText(atom.description + '\n\n');
  md.appendCodeblock(`${atom.name}${formatSignature(atom)}`, 'typescript');
  if (atom.dependencies.length) md.appendMarkdown(`\nDepends on: ${atom.dependencies.map((d) => `\`${d}\``).join(', ')}`);
  return md;
}
