/**
 * Every command the extension contributes, by its id: the one place an id is spelled. Registrations,
 * executeCommand calls, tree items, the status bar and the window without a folder all name commands
 * through `Commands`, so a typo is a type error. package.json's contributes.commands lists the same
 * ids (a unit test holds the two together, so a new command cannot be forgotten in either).
 * Pure (no `vscode`), so that test runs in plain Node.
 */
export const Commands = {
  startHere: 'atomicCoding.startHere',
  newAtom: 'atomicCoding.newAtom',
  openAtom: 'atomicCoding.openAtom',
  searchAtoms: 'atomicCoding.searchAtoms',
  editAtomDetails: 'atomicCoding.editAtomDetails',
  changeAtomType: 'atomicCoding.changeAtomType',
  editDependencies: 'atomicCoding.editDependencies',
  deleteAtom: 'atomicCoding.deleteAtom',
  showHistory: 'atomicCoding.showHistory',
  restoreDeleted: 'atomicCoding.restoreDeleted',
  rebuildBundle: 'atomicCoding.rebuildBundle',
  openPreview: 'atomicCoding.openPreview',
  openPreviewInBrowser: 'atomicCoding.openPreviewInBrowser',
  debugPreview: 'atomicCoding.debugPreview',
  showGraph: 'atomicCoding.showGraph',
  connectAgents: 'atomicCoding.connectAgents',
  restartServer: 'atomicCoding.restartServer',
  showOutput: 'atomicCoding.showOutput',
  showStatus: 'atomicCoding.showStatus',
  refresh: 'atomicCoding.refresh',
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];

/** The prefix every id starts with; logs name a command without it (`newAtom: ...`). */
const PREFIX = 'atomicCoding.';

/** `atomicCoding.newAtom` -> `newAtom`, as the output channel names commands. */
export function commandName(id: CommandId): string {
  return id.slice(PREFIX.length);
}

export const ALL_COMMANDS: readonly CommandId[] = Object.values(Commands);

/** The commands that do their work without a folder open: they are registered in every window. */
const WITHOUT_FOLDER: ReadonlySet<CommandId> = new Set([Commands.showOutput]);

/**
 * The commands that work on the folder's atoms: in a window without a folder each only says to open
 * one. Derived, so a new command gets that answer without anyone listing it.
 */
export const FOLDER_COMMANDS: readonly CommandId[] = ALL_COMMANDS.filter((id) => !WITHOUT_FOLDER.has(id));
