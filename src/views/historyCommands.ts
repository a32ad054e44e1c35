/**
 * History and undo from the tree (issue 6): MCP edits bypass the editor's undo, so the atom's stored
 * versions are the user's safety net. "Show History / Restore Version…" lists an atom's versions, compares
 * one with the current atom in a diff, or restores it; "Restore Deleted Atom…" brings back a deleted one.
 * Restores go through AtomWorkspace.restore, the same rules as the atom_history MCP tool: validated, and
 * saved as a new version. Like the other commands, each takes optional arguments so the tests and other
 * commands can call it without prompts.
 */
import * as vscode from 'vscode';
import { summarizeHistory, versionToRestore, type VersionSummary } from '../atoms/history.js';
import type { AtomVersion } from '../atoms/model.js';
import type { Logger } from '../util/log.js';
import type { AtomWorkspace } from '../workspace.js';
import { resolveAtomName, type AtomArg } from './atomArgument.js';
import { atomUri } from './atomFileSystem.js';
import { formatAtomDocument } from './atomDocument.js';
import { Commands, type CommandId } from './commandIds.js';
import { registerReportingCommand } from './reportingCommand.js';
import type { WorkspaceLifecycle } from '../lifecycle.js';

/** Read-only documents of past versions, for the diff: `atom-history:/<name>.js?v=<version>`. */
export const HISTORY_SCHEME = 'atom-history';

export function historyUri(name: string, version: number): vscode.Uri {
  return vscode.Uri.from({ scheme: HISTORY_SCHEME, path: `/${name}.js`, query: `v=${version}` });
}

/** What the user can do with a picked version. */
export type HistoryAction = 'compare' | 'restore';

/** What a restore did: the version it started from and the new version it saved. */
export interface RestoreReport {
  name: string;
  from: number;
  version: number;
}

/** Serves past versions as the same JavaScript-with-header text the `atom:` editor shows. */
class HistoryContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly workspace: () => AtomWorkspace) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const name = uri.path.replace(/^\//, '').replace(/\.js$/, '');
    const version = Number(new URLSearchParams(uri.query).get('v'));
    const v = this.workspace().atoms.history(name).find((h) => h.version === version);
    if (!v) throw new Error(`${name} has no version ${version}`);
    return formatAtomDocument(v);
  }
}

export function registerHistoryCommands(lifecycle: WorkspaceLifecycle, log: Logger): vscode.Disposable[] {
  const commands = new HistoryCommands(lifecycle, log);
  // A refusal (a missing dependency, no such version) is the user's answer, not a crash: a warning.
  const register = (id: CommandId, fn: (this: HistoryCommands, ...args: never[]) => unknown) => registerReportingCommand(id, fn, commands, log, 'warn');
  return [
    vscode.workspace.registerTextDocumentContentProvider(HISTORY_SCHEME, new HistoryContentProvider(() => commands.workspace())),
    register(Commands.showHistory, commands.showHistory),
    register(Commands.restoreDeleted, commands.restoreDeleted),
  ];
}

class HistoryCommands {
  constructor(
    private readonly lifecycle: WorkspaceLifecycle,
    private readonly log: Logger,
  ) {}

  workspace(): AtomWorkspace {
    return this.lifecycle.requireWorkspace();
  }

  /**
   * Lists the atom's versions, newest first; then compares the picked one with the current atom or
   * restores it. Returns the restore's report, or undefined when it compared or the user cancelled.
   */
  async showHistory(arg?: AtomArg, version?: number, action?: HistoryAction): Promise<RestoreReport | undefined> {
    const workspace = this.workspace();
    const name = await resolveAtomName(arg, workspace, 'Show the history of which atom?', (a) => ({ description: `${a.type}, v${a.version}` }));
    if (!name) return undefined;
    const history = workspace.atoms.history(name);
    if (!history.length) throw new Error(`"${name}" has no history: it never existed`);
    const current = workspace.atoms.get(name)?.version;
    version ??= await this.pickVersion(name, history, current);
    if (version === undefined) return undefined;
    const from = versionToRestore(history, name, current !== undefined, version);
    if (!action) {
      if (from.version === current) {
        void vscode.window.showInformationMessage(`${name} v${current} is the current version.`);
        return undefined;
      }
      const picked = await vscode.window.showQuickPick(
        [
          ...(current !== undefined ? [{ label: '$(diff) Compare with Current', id: 'compare' as const }] : []),
          { label: `$(history) Restore v${from.version}`, description: 'saved as a new version; the history keeps the current one', id: 'restore' as const },
        ],
        { title: `${name} v${version}` },
      );
      action = picked?.id;
    }
    if (action === 'compare') {
      await vscode.commands.executeCommand('vscode.diff', historyUri(name, from.version), atomUri(name), `${name}: v${from.version} \u2194 current`);
      return undefined;
    }
    if (action !== 'restore') return undefined;
    const { result, build } = await workspace.restore(name, version);
    const report = { name, from: from.version, version: result.atom.version };
    this.log.info(`restored ${name} v${report.from} as v${report.version}`);
    const bundle = build.status === 'success' ? '' : ` The bundle did not build: ${build.error_message ?? ''}`;
    void vscode.window.showInformationMessage(`Restored ${name} v${report.from} as v${report.version}.${bundle}`);
    return report;
  }

  /** Lists the deleted atoms (newest deletion first) and restores the picked one as it was last. */
  async restoreDeleted(name?: string): Promise<RestoreReport | undefined> {
    const workspace = this.workspace();
    if (!name) {
      const deleted = workspace.atoms.deletedAtoms();
      if (!deleted.length) {
        void vscode.window.showInformationMessage('Atomic Coding: no deleted atoms to restore.');
        return undefined;
      }
      const picked = await vscode.window.showQuickPick(
        deleted.map((d) => ({ label: d.name, description: `deleted ${formatTime(d.deleted_at)}`, detail: `last version v${d.version}` })),
        { title: 'Restore Deleted Atom', placeHolder: 'Which atom should come back?', matchOnDescription: true },
      );
      name = picked?.label;
      if (!name) return undefined;
    }
    const { from, result } = await workspace.restore(name);
    const report = { name, from: from.version, version: result.atom.version };
    this.log.info(`restored deleted atom ${name} from v${report.from} as v${report.version}`);
    void vscode.window.showInformationMessage(`Restored ${name} (from v${report.from}) as v${report.version}.`);
    return report;
  }

  private async pickVersion(name: string, history: readonly AtomVersion[], current: number | undefined): Promise<number | undefined> {
    const picked = await vscode.window.showQuickPick(
      summarizeHistory(history).map((s) => ({
        label: `v${s.version}${s.version === current ? ' (current)' : ''}`,
        description: `${formatTime(s.at)} \u00b7 ${s.bytes} bytes`,
        detail: describeChange(s),
        version: s.version,
      })),
      { title: `History of ${name}`, placeHolder: 'Pick a version to compare or restore' },
    );
    return picked?.version;
  }
}

function describeChange(s: VersionSummary): string {
  const same = s.sameAs !== undefined ? ` (same as v${s.sameAs})` : '';
  switch (s.change) {
    case 'changed':
      return `changed ${s.fields.join(', ') || 'nothing'}${same}`;
    case 'deleted':
      return 'deleted (restoring brings back the version before)';
    default:
      return `${s.change}${same}`;
  }
}

function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
