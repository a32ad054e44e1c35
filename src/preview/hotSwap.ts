/**
 * Hot swap, the live loop: when atoms change and the boot atom and the page do not, the running preview
 * takes the new functions in place. Pure and free of Node imports (the webview and the frame's prelude
 * use the same text).
 *
 * The preview runs a development form of latest.js: the same bytes with one more line before `// Boot`,
 * inside the bundle's IIFE, where every atom is a binding of that function's scope:
 *
 *     self.__atomicEval = function (__atomic_code, __atomic_value) { return eval(__atomic_code); };
 *
 * A direct eval there reads and assigns those bindings (a function declaration's binding can be
 * assigned). A swap evaluates each changed atom's code as a function expression (so a syntax error
 * changes nothing), copies the own properties of the old function to the new one (state kept on
 * functions, such as `game_state.store`, survives), then assigns the new function to the atom's name:
 * the next call by name runs the new code. An atom new since the page started has no binding in that
 * scope; it becomes a property of the frame's global object, which every atom's free name reaches.
 * Atom lines keep their line numbers (the added line comes after them), so the bundle map and
 * latest.js.map hold for the development form too.
 *
 * Everything that cannot be swapped restarts, and says why (`planUpdate`).
 */
import type { Atom } from '../atoms/model.js';
import type { SwapAtom } from '../protocol/webviewMessages.js';

/** The line the development form adds before the Boot lines (one line: no atom line moves). */
export const SWAP_HOOK = '  self.__atomicEval = function (__atomic_code, __atomic_value) { return eval(__atomic_code); };';

const BOOT = '\n  // Boot\n';

/** latest.js in its development form (SWAP_HOOK before the Boot lines), or unchanged when it has none. */
export function developmentBundle(bundle: string): string {
  const at = bundle.lastIndexOf(BOOT);
  if (at < 0) return bundle;
  return `${bundle.slice(0, at + 1)}${SWAP_HOOK}${bundle.slice(at)}`;
}

export type { SwapAtom };

/** What the preview runs: the program's atoms (by name), the boot atom and the page. */
export interface LiveState {
  atoms: ReadonlyMap<string, Pick<Atom, 'name' | 'code' | 'dependencies'>>;
  entry: string | null;
  /** The page's HTML (null: the built-in page). */
  page: string | null;
}

export type LiveUpdate =
  /** Nothing the running code sees changed (a description, a type that moves nothing). */
  | { kind: 'none' }
  | { kind: 'swap'; atoms: SwapAtom[] }
  | { kind: 'restart'; reason: string };

/**
 * How the preview running `running` (undefined: nothing runs) takes `next`: swap the atoms whose code
 * changed, or restart with the reason, when the boot atom or the page changed, or a deleted atom is
 * still called by the running code, or hot swap is off.
 */
export function planUpdate(running: LiveState | undefined, next: LiveState, hotSwap: boolean): LiveUpdate {
  if (!running) return { kind: 'restart', reason: 'started' };
  if (running.page !== next.page) return { kind: 'restart', reason: 'the page changed' };
  if (running.entry !== next.entry) return { kind: 'restart', reason: `the boot atom changed (${running.entry ?? 'none'} -> ${next.entry ?? 'none'})` };
  for (const [name] of running.atoms) {
    if (next.atoms.has(name)) continue;
    for (const atom of running.atoms.values()) {
      if (atom.name !== name && atom.dependencies.includes(name)) return { kind: 'restart', reason: `deleted atom ${name} is still called by ${atom.name}` };
    }
  }
  const changed: SwapAtom[] = [];
  for (const [name, atom] of next.atoms) {
    const was = running.atoms.get(name);
    if (was === atom || was?.code === atom.code) continue;
    if (name === next.entry) return { kind: 'restart', reason: 'boot atom changed' };
    changed.push({ name, code: atom.code });
  }
  if (changed.length === 0) return { kind: 'none' };
  if (!hotSwap) return { kind: 'restart', reason: 'hot swap is off (atomicCoding.preview.hotSwap)' };
  return { kind: 'swap', atoms: changed };
}

/** `swapped: a, b` or `restarted: reason`, as the preview's console and the output channel say it. */
export function describeUpdate(update: LiveUpdate): string {
  if (update.kind === 'swap') return `swapped: ${update.atoms.map((a) => a.name).join(', ')}`;
  if (update.kind === 'restart') return `restarted: ${update.reason}`;
  return 'unchanged';
}

/**
 * The frame's side (a part of the prelude, page.ts): takes `{ source: 'atomic-host', kind: 'swap', id,
 * atoms }` from the frame's parent only, swaps, and reports `swapped` (with the names) or `swapFailed`.
 * `send` is the prelude's report function.
 */
export const FRAME_SWAP_LISTENER = `
  var NAME = /^[a-z][a-z0-9_]*$/;
  var KEEP = { length: 1, name: 1, prototype: 1, arguments: 1, caller: 1 };
  function swapAtoms(atoms) {
    var hook = self.__atomicEval;
    if (typeof hook !== 'function') throw new Error('this page runs no swappable bundle');
    var made = [];
    for (var i = 0; i < atoms.length; i++) {
      var a = atoms[i];
      if (!a || typeof a.code !== 'string' || !NAME.test(a.name)) throw new Error('not an atom');
      var f = hook('(' + a.code + '\\n)\\n//# sourceURL=atomic-swap/' + a.name + '.js');
      if (typeof f !== 'function') throw new Error(a.name + ' is not a function');
      made.push(f);
    }
    for (var j = 0; j < atoms.length; j++) {
      var name = atoms[j].name, next = made[j], old;
      try { old = hook(name); } catch (e) { old = undefined; }
      if (typeof old === 'function') {
        Object.getOwnPropertyNames(old).forEach(function (k) {
          if (KEEP[k] || Object.prototype.hasOwnProperty.call(next, k)) return;
          try { Object.defineProperty(next, k, Object.getOwnPropertyDescriptor(old, k)); } catch (e) {}
        });
        try { hook(name + ' = __atomic_value', next); } catch (e) { self[name] = next; }
      } else self[name] = next;
    }
  }
  window.addEventListener('message', function (e) {
    var m = e.data;
    if (e.source !== parent || !m || m.source !== 'atomic-host' || m.kind !== 'swap' || !Array.isArray(m.atoms)) return;
    try {
      swapAtoms(m.atoms);
      send({ source: 'atomic-preview', kind: 'swapped', id: m.id, names: m.atoms.map(function (a) { return a.name; }) });
    } catch (err) {
      send({ source: 'atomic-preview', kind: 'swapFailed', id: m.id, message: String(err && err.message || err) });
    }
  });`;

/** What a live loop tells the browser preview's pages (PreviewServer's notifications). */
export interface LivePages {
  notifySwap(atoms: readonly SwapAtom[]): void;
  notifyBuild(build: { status: 'success' | 'error'; error: string | null }): void;
}

/**
 * The loopback browser preview kept in step with the builds: every page runs the newest bundle, so one
 * state stands for them all; a page that is not at the generation a swap starts from reloads itself.
 */
export class BrowserLiveLoop {
  constructor(
    private readonly pages: LivePages,
    private running: LiveState | undefined,
  ) {}

  /** A successful build (or the page changed): swap or restart; undefined `next`: no workspace, restart. */
  built(next: LiveState | undefined, hotSwap: boolean, pageChanged = false): LiveUpdate {
    const update: LiveUpdate = next && !pageChanged ? planUpdate(this.running, next, hotSwap) : { kind: 'restart', reason: pageChanged ? 'the page changed' : 'started' };
    this.running = next;
    if (update.kind === 'swap') this.pages.notifySwap(update.atoms);
    else if (update.kind === 'restart') this.pages.notifyBuild({ status: 'success', error: null });
    return update;
  }

  /** A failed build: the pages show its error; the next success restarts them. */
  failed(error: string | null): void {
    this.running = undefined;
    this.pages.notifyBuild({ status: 'error', error });
  }
}
