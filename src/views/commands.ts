/**
 * The palette and context-menu commands. Each takes optional arguments so the tree, the editor title,
 * other commands and the tests can call it without prompts; without them it asks with VS Code's own
 * quick picks and input boxes. Every write goes through AtomWorkspace, the same path as the MCP tools.
 */
import { atomNoteLines, draftOfAtom, writeNoteLines } from '../atoms/writeChecks.js';
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { AGENT_TARGETS, DEFAULT_TARGET_IDS, findTarget, nodeCommand, serverFor, USER_TARGETS, writeAgentConfig, type WriteResult } from '../agents/agentConfig.js';
import { errors } from '../atoms/errors.js';
import { ATOM_TYPES, MAX_NAME_LENGTH, NAME_PATTERN, type Atom, type AtomDraft, type AtomType } from '../atoms/model.js';
import { formatSignature } from '../atoms/signature.js';
import type { Logger } from '../util/log.js';
import type { AtomWorkspace } from '../workspace.js';
import { resolveAtomName, type AtomArg } from './atomArgument.js';
import { atomUri } from './atomFileSystem.js';
import { formatPortList, parsePortList } from './atomDocument.js';
import { Commands, type CommandId } from './commandIds.js';
import { registerReportingCommand } from './reportingCommand.js';
import type { WorkspaceLifecycle } from '../lifecycle.js';

const TYPE_DESCRIPTIONS: Record<AtomType, string> = {
  core: 'system level: entry points, game loop, scene manager',
  feature: 'game mechanics, player-facing logic',
  util: 'helpers, configuration, pure functions',
  test: 'a scenario that calls other atoms and throws (assert) when they misbehave; never bundled',
};

export interface CommandDeps {
  lifecycle: WorkspaceLifecycle;
  log: Logger;
  output: vscode.OutputChannel;
  extensionUri: vscode.Uri;
  refreshTree(): void;
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const c = new AtomCommands(deps);
  const register = (id: CommandId, fn: (this: AtomCommands, ...args: never[]) => unknown) => registerReportingCommand(id, fn, c, deps.log);
  return [
    register(Commands.newAtom, c.newAtom),
    register(Commands.openAtom, c.openAtom),
    register(Commands.editAtomDetails, c.editAtomDetails),
    register(Commands.changeAtomType, c.changeAtomType),
    register(Commands.editDependencies, c.editDependencies),
    register(Commands.deleteAtom, c.deleteAtom),
    register(Commands.rebuildBundle, c.rebuildBundle),
    register(Commands.connectAgents, c.connectAgents),
    register(Commands.restartServer, c.restartServer),
    register(Commands.showOutput, c.showOutput),
    register(Commands.showStatus, c.showStatus),
    register(Commands.refresh, c.refresh),
  ];
}

class AtomCommands {
  constructor(private readonly deps: CommandDeps) {}

  private workspace(): AtomWorkspace {
    return this.deps.lifecycle.requireWorkspace();
  }

  /** The atom a command is about: from its argument, else the active atom editor, else a quick pick. */
  private async resolveAtom(arg: AtomArg, placeHolder: string): Promise<Atom | undefined> {
    const workspace = this.workspace();
    const name = await resolveAtomName(arg, workspace, placeHolder);
    if (!name) return undefined;
    const atom = workspace.atoms.get(name);
    if (!atom) throw errors.notFound(name);
    return atom;
  }

  async newAtom(name?: string, type?: AtomType, description?: string): Promise<string | undefined> {
    // In a folder where Atomic Coding has not started yet, the prompts come first and the store is
    // opened (writing .atomic/ and atoms/) only once the user has answered them: New Atom is asking.
    const known = (value: string) => this.deps.lifecycle.workspace?.atoms.has(value) ?? false;
    name ??= await vscode.window.showInputBox({
      title: 'New Atom (1/3): name',
      prompt: 'A snake_case name; the code is one function with this name',
      placeHolder: 'player_jump',
      validateInput: (value) => {
        // The store validates again on save; this is the quick check while typing (and keeps the
        // JavaScript parser out of the extension's light half).
        if (!NAME_PATTERN.test(value)) return 'use lowercase letters, digits and underscores, starting with a letter, e.g. player_jump';
        if (value.length > MAX_NAME_LENGTH) return `at most ${MAX_NAME_LENGTH} characters`;
        return known(value) ? `an atom named "${value}" already exists` : undefined;
      },
    });
    if (!name) return undefined;
    type ??= (
      await vscode.window.showQuickPick(
        ATOM_TYPES.map((t) => ({ label: t, description: TYPE_DESCRIPTIONS[t] })),
        { title: 'New Atom (2/3): type', placeHolder: 'What kind of atom is it?' },
      )
    )?.label;
    if (!type) return undefined;
    description ??= await vscode.window.showInputBox({
      title: 'New Atom (3/3): description',
      prompt: 'One sentence on what it does (semantic search reads it); optional',
    });
    if (description === undefined) return undefined;
    if (this.deps.lifecycle.state !== 'ready') await this.deps.lifecycle.start();
    const workspace = this.workspace();
    if (workspace.atoms.has(name)) throw new Error(`an atom named "${name}" already exists`);
    const draft: AtomDraft = { name, type, code: `function ${name}() {\n}\n`, description: description || undefined };
    await workspace.upsert(draft);
    this.deps.log.info(`created atom ${name} (${type})`);
    await this.openAtom(name);
    return name;
  }

  async openAtom(arg?: AtomArg): Promise<vscode.TextEditor | undefined> {
    const atom = await this.resolveAtom(arg, 'Open which atom?');
    if (!atom) return undefined;
    const document = await vscode.workspace.openTextDocument(atomUri(atom.name));
    if (document.languageId !== 'javascript') await vscode.languages.setTextDocumentLanguage(document, 'javascript');
    return vscode.window.showTextDocument(document, { preview: false });
  }

  /** Asks which part of the interface to change, then changes it with the matching picker. */
  async editAtomDetails(arg?: AtomArg): Promise<boolean> {
    const atom = await this.resolveAtom(arg, 'Edit the details of which atom?');
    if (!atom) return false;
    const choice = await vscode.window.showQuickPick(
      [
        { label: 'Type', description: atom.type, id: 'type' },
        { label: 'Description', description: atom.description ?? '(none)', id: 'description' },
        { label: 'Inputs', description: formatPortList(atom.inputs) || '(none)', id: 'inputs' },
        { label: 'Outputs', description: formatPortList(atom.outputs) || '(none)', id: 'outputs' },
        { label: 'Dependencies', description: atom.dependencies.join(', ') || '(none)', id: 'dependencies' },
        { label: 'Edit in the editor', description: 'the JSDoc header above the code holds all of these', id: 'editor' },
      ],
      { title: `Edit ${atom.name}`, placeHolder: 'What do you want to change?' },
    );
    switch (choice?.id) {
      case 'type':
        return this.changeAtomType(atom.name);
      case 'dependencies':
        return this.editDependencies(atom.name);
      case 'description': {
        const description = await vscode.window.showInputBox({ title: `${atom.name}: description`, value: atom.description ?? '' });
        return description !== undefined && this.save(atom, { description: description || undefined });
      }
      case 'inputs':
      case 'outputs': {
        const key = choice.id;
        const text = await vscode.window.showInputBox({
          title: `${atom.name}: ${key}`,
          prompt: 'name: type, separated by commas; ? marks an optional port. Types: number, string, boolean, number[], string[], boolean[], void',
          value: formatPortList(atom[key]),
          validateInput: (value) => {
            try {
              parsePortList(value);
            } catch (err) {
              return (err as Error).message;
            }
            return undefined;
          },
        });
        return text !== undefined && this.save(atom, { [key]: parsePortList(text, atom[key]) });
      }
      case 'editor':
        await this.openAtom(atom.name);
        return true;
      default:
        return false;
    }
  }

  async changeAtomType(arg?: AtomArg, type?: AtomType): Promise<boolean> {
    const atom = await this.resolveAtom(arg, 'Change the type of which atom?');
    if (!atom) return false;
    type ??= (
      await vscode.window.showQuickPick(
        ATOM_TYPES.map((t) => ({ label: t, description: TYPE_DESCRIPTIONS[t], picked: t === atom.type })),
        { title: `${atom.name}: type (now ${atom.type})` },
      )
    )?.label;
    return !!type && type !== atom.type && this.save(atom, { type });
  }

  async editDependencies(arg?: AtomArg, dependencies?: string[]): Promise<boolean> {
    const atom = await this.resolveAtom(arg, 'Edit the dependencies of which atom?');
    if (!atom) return false;
    if (!dependencies) {
      const others = this.workspace()
        .atoms.all()
        .filter((a) => a.name !== atom.name)
        .sort((a, b) => a.name.localeCompare(b.name));
      const picked = await vscode.window.showQuickPick(
        others.map((a) => ({ label: a.name, description: `${a.type} ${formatSignature(a)}`, picked: atom.dependencies.includes(a.name) })),
        { title: `${atom.name}: dependencies (the atoms its code calls)`, canPickMany: true, matchOnDescription: true },
      );
      if (!picked) return false;
      dependencies = picked.map((p) => p.label);
    }
    return this.save(atom, { dependencies });
  }

  private async save(atom: Atom, change: Partial<AtomDraft>): Promise<boolean> {
    const draft: AtomDraft = { ...draftOfAtom(atom), ...change };
    const { result, notes } = await this.workspace().upsert(draft);
    this.deps.log.info(`updated ${atom.name} to version ${result.atom.version}`);
    // What the write did beyond the change asked for (a dependency the code calls kept, the boot moved): said, as agents are told.
    const said = [...atomNoteLines(notes.atoms.get(atom.name)), ...writeNoteLines(notes)];
    if (said.length > 0) {
      this.deps.log.info(`${atom.name}: ${said.join('; ')}`);
      void vscode.window.showInformationMessage(`${atom.name} saved. ${said.join('. ')}.`);
    }
    return true;
  }

  /**
   * Deletes after the contract's dependents check and a confirmation. Returns whether it deleted.
   * Callers that confirmed already (another extension, a script) pass `{ confirmed: true }`.
   */
  async deleteAtom(arg?: AtomArg, options?: { confirmed?: boolean }): Promise<boolean> {
    const atom = await this.resolveAtom(arg, 'Delete which atom?');
    if (!atom) return false;
    const workspace = this.workspace();
    const dependents = workspace.atoms.dependents(atom.name);
    if (dependents.length) {
      void vscode.window.showErrorMessage(errors.inUse(atom.name, dependents).message);
      return false;
    }
    const confirm = options?.confirmed ? 'Delete' : await vscode.window.showWarningMessage(
      `Delete the atom "${atom.name}"?`,
      { modal: true, detail: `${atom.type} ${formatSignature(atom)}\nIts history stays in the store; the bundle is rebuilt without it.` },
      'Delete',
    );
    if (confirm !== 'Delete') return false;
    await workspace.delete(atom.name);
    this.deps.log.info(`deleted atom ${atom.name}`);
    return true;
  }

  async rebuildBundle(): Promise<string> {
    const build = await this.workspace().rebuild();
    if (build.status === 'success') {
      const text = `Bundle rebuilt: ${build.atom_count} atom${build.atom_count === 1 ? '' : 's'} in ${build.duration_ms ?? '?'} ms \u2192 ${build.bundle_path}`;
      void vscode.window.showInformationMessage(text);
      return build.status;
    }
    void vscode.window.showErrorMessage(`Bundle build failed: ${build.error_message}`);
    return build.status;
  }

  /** Writes our stdio server into the chosen agents' MCP configs. Returns what it wrote. */
  async connectAgents(ids?: string[]): Promise<WriteResult[]> {
    const folder = this.deps.lifecycle.folder.fsPath;
    if (!ids) {
      const picked = await vscode.window.showQuickPick(
        USER_TARGETS.map((t) => ({ label: t.label, description: t.file, picked: DEFAULT_TARGET_IDS.includes(t.id), id: t.id })),
        {
          title: 'Connect Other Agents',
          placeHolder: "Which agents should get the Atomic Coding MCP server? Written to your own configuration in your home folder, not to the repository (VS Code's own agent needs nothing)",
          canPickMany: true,
        },
      );
      if (!picked?.length) return [];
      ids = picked.map((p) => p.id);
    }
    const cli = vscode.Uri.joinPath(this.deps.extensionUri, 'dist', 'cli.js').fsPath;
    const node = nodeCommand(folder);
    // The user's own configuration files (tests point this at a folder of their own).
    const home = process.env.ATOMIC_CODING_USER_HOME || homedir();
    const results: WriteResult[] = [];
    const failures: string[] = [];
    for (const id of ids) {
      try {
        const target = findTarget(id);
        const result = writeAgentConfig(target, folder, serverFor(target, node, cli, folder), home);
        results.push(result);
        this.deps.log.info(`connect: ${result.target.label}: ${result.outcome} ${result.path}`);
      } catch (err) {
        // Named per agent: a refused file (not JSON, a link out of the workspace) says what to do about it.
        const label = AGENT_TARGETS.find((t) => t.id === id)?.label;
        failures.push(label ? `${label}: ${(err as Error).message}` : (err as Error).message);
        this.deps.log.warn(`connect: ${label ?? id}: ${(err as Error).message}`);
      }
    }
    const summary = results.map((r) => `${r.target.label} (${r.outcome})`).join(', ');
    if (failures.length) void vscode.window.showErrorMessage(`Connect Other Agents: ${failures.join(' ')}`);
    if (results.length) {
      void vscode.window.showInformationMessage(
        `Connected: ${summary}, in ${results.map((r) => r.path).join(', ')}: ${results.every((r) => r.target.file.startsWith('~/')) ? 'your own configuration, not the repository' : 'files in the repository'}. ` +
          `They start \`node ${cli} serve --stdio\`, which talks to this window's server while VS Code runs.`,
      );
    }
    return results;
  }

  async restartServer(): Promise<string | undefined> {
    await this.deps.lifecycle.restart();
    const host = this.deps.lifecycle.host;
    if (host) void vscode.window.showInformationMessage(`Atomic Coding MCP server restarted on ${host.url}`);
    else void vscode.window.showErrorMessage(`Atomic Coding could not start: ${this.deps.lifecycle.error}`);
    return host?.url;
  }

  showOutput(): void {
    this.deps.output.show(true);
  }

  refresh(): void {
    this.deps.refreshTree();
  }

  /** The status bar's click: the details, with the actions that go with them. */
  async showStatus(): Promise<void> {
    const s = this.deps.lifecycle;
    const build = s.lastBuild;
    const items: (vscode.QuickPickItem & { run?: () => unknown })[] = [
      { label: `$(folder) ${s.folder.fsPath}`, description: ((n) => `${n} atom${n === 1 ? '' : 's'}`)(s.atoms()?.length ?? 0) },
      s.host
        ? { label: `$(server) MCP server running`, description: s.host.url, detail: `${s.host.sessions.size} client session(s); token in .atomic/server.json` }
        : { label: `$(error) MCP server ${s.state}`, description: s.error },
      build
        ? {
            label: build.status === 'success' ? '$(pass) Last build succeeded' : '$(error) Last build failed',
            description: build.status === 'success' ? `${build.atom_count} atom${build.atom_count === 1 ? '' : 's'}, ${build.duration_ms ?? '?'} ms` : (build.error_message ?? ''),
            detail: build.bundle_path ?? undefined,
          }
        : { label: '$(circle-outline) No build yet' },
      { label: '', kind: vscode.QuickPickItemKind.Separator },
      { label: '$(debug-restart) Restart MCP Server', run: () => vscode.commands.executeCommand(Commands.restartServer) },
      { label: '$(package) Rebuild Bundle', run: () => vscode.commands.executeCommand(Commands.rebuildBundle) },
      { label: '$(plug) Connect Other Agents', run: () => vscode.commands.executeCommand(Commands.connectAgents) },
      { label: '$(output) Show Output', run: () => vscode.commands.executeCommand(Commands.showOutput) },
    ];
    if (s.host) {
      const url = s.host.url;
      items.push({ label: '$(copy) Copy Server URL', run: () => vscode.env.clipboard.writeText(url) });
    }
    const picked = await vscode.window.showQuickPick(items, { title: 'Atomic Coding' });
    await picked?.run?.();
  }
}
