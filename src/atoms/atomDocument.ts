/**
 * The text of an `atom:` editor: a JSDoc header that carries the atom's type, description, inputs,
 * outputs and dependencies, followed by the atom's code. People edit the interface the way they
 * document any JavaScript function, and JavaScript language features understand it:
 *
 *   /**
 *    * Applies upward force when the entity is grounded.
 *    *
 *    * @kind feature
 *    * @param {number} velocity_y - Current Y velocity
 *    * @param {number} [force_multiplier] - optional inputs are in brackets
 *    * @returns {number} new_velocity_y - Y velocity after the jump
 *    * @requires physics_config
 *    * @example player_jump(0, 1) => 12
 *    *\/
 *   function player_jump(velocity_y, force_multiplier) { ... }
 *
 * Descriptions (the atom's and its ports') are escaped so that any text round-trips exactly and cannot
 * break the header: a `\` is written `\\`, a `*\/` as `*\\/`, a description line starting with `@` as `\@`
 * (else it would be read as a tag), whitespace at either end of the text or of a line as `\n`, `\t` or
 * `\uXXXX` (else it would be trimmed), and characters an editor changes on save (`\r`, other line
 * separators, control characters, unpaired surrogates) as `\r` or `\uXXXX`. Ordinary text is written as
 * it is. Reading undoes exactly these escapes; any other backslash is kept as typed.
 *
 * Pure (no `vscode`), so the round trip is unit-tested, and the text tree (src/textTree/) stores atoms
 * in git in this same format.
 */
import { AtomError } from './errors.js';
import { formatExample, parseExample, sameExamples } from './examples.js';
import { isAtomType, isPortType, type Atom, type AtomDraft, type AtomExample, type Port } from './model.js';

type FormattableAtom = Pick<Atom, 'type' | 'code' | 'inputs' | 'outputs' | 'dependencies' | 'description'> & { name?: string; examples?: AtomExample[] };

/** The header's parts, in the canonical order. */
type Section = 'description' | 'kind' | 'param' | 'returns' | 'requires' | 'example';
const SECTIONS: readonly Section[] = ['description', 'kind', 'param', 'returns', 'requires', 'example'];

/** The canonical header lines of one part (without the ` * ` prefix). */
function sectionLines(atom: FormattableAtom, section: Section): string[] {
  switch (section) {
    case 'description':
      return atom.description ? [...escapeDescription(atom.description), ''] : [];
    case 'kind':
      return [`@kind ${atom.type}`];
    case 'param':
      return atom.inputs.map((port) => `@param ${formatPort(port)}`);
    case 'returns':
      return atom.outputs.map((port) => `@returns ${formatPort(port)}`);
    case 'requires':
      return atom.dependencies.map((dep) => `@requires ${dep}`);
    case 'example':
      // JSON on one line: the text it holds is escaped by JSON itself (`*/` cannot appear: `/` stays, so it is broken up).
      return (atom.examples ?? []).map((example) => `@example ${formatExample(atom.name ?? 'atom', example).replace(/\*\//g, '*\\u002f')}`);
  }
}

/**
 * Formats an atom as the editor shows it. `parseAtomDocument(name, formatAtomDocument(a))` gives `a` back.
 *
 * `layout`: the text this atom had before (its file in atoms/, as a person or an older version wrote
 * it). Each part of the header that did not change keeps its lines exactly as they were (a one-line
 * `@requires a, b`, tags in another order, blank lines between them), and a changed `@requires` list
 * keeps the one-line form when it had it; only the lines of what changed are written anew. Without a
 * layout (or one that does not read back as this atom) the canonical layout is written: one tag a line.
 */
export function formatAtomDocument(atom: FormattableAtom, layout?: string): string {
  const canonical = (): string => {
    const lines = SECTIONS.flatMap((section) => sectionLines(atom, section));
    const header = ['/**', ...lines.map((l) => (l ? ` * ${l}` : ' *')), ' */'].join('\n');
    return `${header}\n${atom.code}`;
  };
  if (layout === undefined) return canonical();
  try {
    const kept = formatInLayout(atom, layout);
    if (kept !== undefined && atom.name !== undefined && sameAtom(atom as Atom, parseAtomDocument(atom.name, kept).draft as AtomDraft)) return kept;
  } catch {
    // a layout that does not read: the canonical layout
  }
  return canonical();
}

function formatInLayout(atom: FormattableAtom, layout: string): string | undefined {
  const match = HEADER.exec(layout);
  if (!match || atom.name === undefined) return undefined;
  const before = parseAtomDocument(atom.name, layout);
  if (!before.hasHeader) return undefined;
  const old = before.draft;
  // The raw lines of each part, and the order the parts came in.
  const raw = match[1]!.split(/\r?\n/);
  // The first and last raw lines are what follows `/**` and precedes `*/` on their lines (usually empty).
  if (raw.length < 2 || raw[0]!.trim() || raw[raw.length - 1]!.trim()) return undefined;
  const groups = new Map<Section, string[]>();
  const order: Section[] = [];
  let current: Section = 'description';
  for (const line of raw.slice(1, -1)) {
    const tag = /^\s*\*?\s*@(\w+)/.exec(line);
    if (tag) current = tag[1] === 'return' ? 'returns' : (tag[1] as Section);
    if (!groups.has(current)) {
      groups.set(current, []);
      order.push(current);
    }
    groups.get(current)!.push(line);
  }
  const same: Record<Section, boolean> = {
    description: (old.description ?? '') === (atom.description ?? ''),
    kind: old.type === atom.type,
    param: JSON.stringify(old.inputs ?? []) === JSON.stringify(atom.inputs),
    returns: JSON.stringify(old.outputs ?? []) === JSON.stringify(atom.outputs),
    requires: JSON.stringify([...new Set(old.dependencies ?? [])].sort()) === JSON.stringify(atom.dependencies),
    example: sameExamples(atom.examples, old.examples),
  };
  const prefixed = (lines: string[]) => lines.map((l) => (l ? ` * ${l}` : ' *'));
  const written = (section: Section): string[] => {
    const had = groups.get(section);
    if (had && same[section]) return had;
    if (section === 'requires' && had && atom.dependencies.length > 0) {
      // Keep the form the list had: all on one line when it was written so.
      const tagLines = had.filter((l) => /@requires\b/.test(l));
      if (tagLines.length === 1 && (old.dependencies?.length ?? 0) > 1) {
        const sep = /,/.test(tagLines[0]!) ? ', ' : ' ';
        return [...prefixed([`@requires ${atom.dependencies.join(sep)}`]), ...had.filter((l) => !/@requires\b/.test(l))];
      }
    }
    return prefixed(sectionLines(atom, section));
  };
  // The parts in the order they had; a part new to this header goes where the canonical order puts it.
  const sequence = [...order];
  for (const section of SECTIONS) {
    if (sequence.includes(section)) continue;
    const next = SECTIONS.slice(SECTIONS.indexOf(section) + 1).find((s) => sequence.includes(s));
    sequence.splice(next ? sequence.indexOf(next) : sequence.length, 0, section);
  }
  const lines = sequence.flatMap(written);
  const open = layout.slice(match.index, match.index + match[0].indexOf('/**') + 3);
  return `${open.trimStart() === '/**' ? open.trimStart() : '/**'}\n${lines.join('\n')}\n */\n${atom.code}`;
}

function formatPort(port: Port): string {
  const name = port.optional ? `[${port.name}]` : port.name;
  return `{${port.type}} ${name}${port.description ? ` - ${escapeText(port.description, false)}` : ''}`;
}

// ---- escaping descriptions ------------------------------------------------------------------

/**
 * What an editor would change or drop: carriage returns and other line separators (VS Code normalizes
 * line ends and offers to remove unusual ones), control characters, a byte-order mark, unpaired surrogates
 * (not encodable as UTF-8). `\n` and `\t` are not here: they are handled where they matter.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeChar(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * One text escaped for the header. `multiline`: line breaks stay line breaks (the atom's description);
 * otherwise they are written `\n` (a port's description lives on its tag's line).
 */
function escapeText(text: string, multiline: boolean): string {
  let out = text.replace(/\\/g, '\\\\').replace(UNSAFE, escapeChar);
  if (!multiline) out = out.replace(/\n/g, escapeChar);
  // `*/` would end the comment; `*\/` reads back as `*/`.
  out = out.replace(/\*\//g, '*\\/');
  // The reader trims the whole text: whitespace at its very ends is escaped.
  return out.replace(/^\s/, escapeChar).replace(/\s$/, escapeChar);
}

/** The atom's description as header lines (without the ` * ` prefix). */
function escapeDescription(description: string): string[] {
  return escapeText(description, true)
    .split('\n')
    .map((line) => line.replace(/^@/, '\\@').replace(/\s$/, escapeChar));
}

/** Undoes escapeText; a backslash before anything else is kept, so hand-typed backslashes survive. */
function unescapeText(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|[\\nrt@/])/g, (_, e: string) => {
    if (e.length > 1) return String.fromCharCode(parseInt(e.slice(1), 16));
    return e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : e;
  });
}

/** What an editor's text says: the draft to upsert, and whether the text had a header at all. */
export interface ParsedAtomDocument {
  /** The draft; without a header, only `code` is set and the rest must come from the stored atom. */
  draft: Omit<AtomDraft, 'type'> & { type?: AtomDraft['type'] };
  hasHeader: boolean;
}

const HEADER = /^\s*\/\*\*([\s\S]*?)\*\/[ \t]*\r?\n?/;

/**
 * Where the code starts in an editor's text: after the header when the text has one (as
 * parseAtomDocument reads it), else 0. Positions in the code plus this are positions in the document.
 */
export function codeOffsetOf(text: string): number {
  const match = HEADER.exec(text);
  if (!match || !/(^|\n)\s*\*?\s*@(kind|param|returns?|requires|example)\b/.test(match[1]!)) return 0;
  return match[0].length;
}

/**
 * Reads an editor's text back into a draft for the atom `name`. The first `/** *\/` block is the header
 * when it has atom tags (@kind, @param, @returns, @requires); without one the whole text is code and the
 * interface stays as stored.
 * Throws an AtomError naming the line for a tag it cannot read, so a save is refused with a reason.
 */
export function parseAtomDocument(name: string, text: string): ParsedAtomDocument {
  const match = HEADER.exec(text);
  if (!match || !/(^|\n)\s*\*?\s*@(kind|param|returns?|requires|example)\b/.test(match[1]!)) {
    return { draft: { name, code: text }, hasHeader: false };
  }
  const code = text.slice(match[0].length);
  const body = match[1]!.split(/\r?\n/).map((line) => line.replace(/^\s*\*? ?/, '').trimEnd());
  const descriptionLines: string[] = [];
  const inputs: Port[] = [];
  const outputs: Port[] = [];
  const dependencies: string[] = [];
  const examples: AtomExample[] = [];
  let type: AtomDraft['type'] | undefined;
  let inTags = false;
  for (const line of body) {
    const tag = /^@(\w+)\s*(.*)$/.exec(line);
    if (!tag) {
      if (!inTags) descriptionLines.push(line);
      else if (line.trim()) throw headerError(`"${line.trim()}" is not a tag; the description goes above the first @ tag`);
      continue;
    }
    inTags = true;
    const [, key, rest] = tag as unknown as [string, string, string];
    switch (key) {
      case 'kind':
        if (!isAtomType(rest.trim())) throw headerError(`@kind ${rest.trim() || '(empty)'}: use core, feature, util or test`);
        type = rest.trim() as AtomDraft['type'];
        break;
      case 'param':
        inputs.push(parsePort('@param', rest));
        break;
      case 'returns':
      case 'return':
        outputs.push(parsePort('@returns', rest));
        break;
      case 'requires':
        for (const dep of rest.split(/[\s,]+/).filter(Boolean)) dependencies.push(dep);
        break;
      case 'example':
        try {
          examples.push(parseExample(name, rest));
        } catch (err) {
          throw headerError((err as Error).message);
        }
        break;
      default:
        throw headerError(`@${key} is not an atom tag; use @kind, @param, @returns, @requires or @example`);
    }
  }
  if (!type) throw headerError('@kind is missing: add "@kind core", "@kind feature" or "@kind util"');
  const description = unescapeText(descriptionLines.join('\n').trim());
  return {
    draft: { name, type, code, inputs, outputs, dependencies, description: description || undefined, ...(examples.length > 0 ? { examples } : {}) },
    hasHeader: true,
  };
}

const PORT = /^\{([^}]*)\}\s+(\[[^\]]*\]|[^\s[\]]+)\s*(?:-\s*)?(.*)$/;

function parsePort(tag: string, text: string): Port {
  const m = PORT.exec(text.trim());
  if (!m) throw headerError(`${tag} ${text.trim()}: write "${tag} {number} name - description"`);
  const [, type, rawName, description] = m as unknown as [string, string, string, string];
  if (!isPortType(type.trim())) {
    throw headerError(`${tag} {${type}}: the type must be one of number, string, boolean, number[], string[], boolean[], void`);
  }
  const optional = rawName.startsWith('[');
  const name = optional ? rawName.slice(1, -1).split('=')[0]!.trim() : rawName;
  const port: Port = { name, type: type.trim() as Port['type'] };
  if (description.trim()) port.description = unescapeText(description.trim());
  if (optional) port.optional = true;
  return port;
}

function headerError(message: string): AtomError {
  return new AtomError('invalid_argument', `atom header: ${message}`);
}

/** Ports as one line for an input box: `velocity_y: number, force_multiplier?: number`. */
export function formatPortList(ports: readonly Port[]): string {
  return ports.map((p) => `${p.name}${p.optional ? '?' : ''}: ${p.type}`).join(', ');
}

/**
 * Reads a line written like formatPortList's. A port that keeps its name keeps its description
 * (the line has no room for descriptions; the editor header does). Empty text means no ports.
 */
export function parsePortList(text: string, previous: readonly Port[] = []): Port[] {
  const parts = text.split(',').map((s) => s.trim()).filter(Boolean);
  return parts.map((part) => {
    const m = /^([A-Za-z_$][A-Za-z0-9_$]*)(\?)?\s*:\s*([a-z]+(?:\[\])?)$/.exec(part);
    if (!m) throw new AtomError('invalid_argument', `"${part}": write each port as name: type, e.g. velocity_y: number or label?: string`);
    const [, name, optional, type] = m as unknown as [string, string, string | undefined, string];
    if (!isPortType(type)) {
      throw new AtomError('invalid_argument', `"${part}": the type must be one of number, string, boolean, number[], string[], boolean[], void`);
    }
    const port: Port = { name, type };
    const description = previous.find((p) => p.name === name)?.description;
    if (description) port.description = description;
    if (optional) port.optional = true;
    return port;
  });
}

/** The draft a saved text stands for: without a header, the stored interface with the new code. */
export function toDraft(name: string, text: string, existing: Atom | undefined): AtomDraft {
  const { draft, hasHeader } = parseAtomDocument(name, text);
  if (hasHeader) return draft as AtomDraft;
  if (!existing) {
    throw new AtomError('invalid_argument', `${name}: a new atom needs its header (/** @kind util ... */) above the code`);
  }
  return {
    name,
    type: existing.type,
    code: draft.code,
    inputs: existing.inputs,
    outputs: existing.outputs,
    dependencies: existing.dependencies,
    description: existing.description ?? undefined,
    ...(existing.examples?.length ? { examples: existing.examples } : {}),
  };
}

/** Whether saving `draft` would change nothing (a save without edits must not add a version). */
export function sameAtom(atom: Atom, draft: AtomDraft): boolean {
  return (
    atom.type === draft.type &&
    atom.code === draft.code &&
    (atom.description ?? '') === (draft.description ?? '') &&
    JSON.stringify(atom.inputs) === JSON.stringify(draft.inputs ?? []) &&
    JSON.stringify(atom.outputs) === JSON.stringify(draft.outputs ?? []) &&
    JSON.stringify(atom.dependencies) === JSON.stringify([...new Set(draft.dependencies ?? [])].sort()) &&
    sameExamples(atom.examples, draft.examples)
  );
}

/** Where things are in an atom's document (the `atom:` editor and the text tree's file), as 0-based lines. */
export interface AtomDocumentLines {
  /** The line the code starts on: an atom-code line N (1-based, as the sandbox reports it) is document line `codeStart + N - 1`. */
  codeStart: number;
  /** The `function <name>` line (the code's first line when it has none). */
  functionLine: number;
  /** Each `@example` line, in the examples' order. */
  exampleLines: number[];
}

/**
 * The lines a test, a diagnostic or a gutter icon points at in `text`, the atom's document as the user
 * sees it (a file keeps its own header layout); `formatAtomDocument(atom)` when not given.
 */
export function atomDocumentLines(
  atom: Pick<Atom, 'name' | 'type' | 'code' | 'inputs' | 'outputs' | 'dependencies' | 'description' | 'examples'>,
  text: string = formatAtomDocument(atom),
): AtomDocumentLines {
  const lines = text.split('\n');
  const at = text.lastIndexOf(atom.code);
  const codeStart = at >= 0 ? text.slice(0, at).split('\n').length - 1 : Math.max(0, lines.length - atom.code.split('\n').length);
  const exampleLines: number[] = [];
  for (let i = 0; i < codeStart; i++) if (lines[i]!.startsWith(' * @example ')) exampleLines.push(i);
  const declaration = new RegExp(`\\bfunction\\s*\\*?\\s*${atom.name}\\s*\\(`);
  const found = lines.findIndex((line, i) => i >= codeStart && declaration.test(line));
  return { codeStart, functionLine: found >= 0 ? found : codeStart, exampleLines };
}

/** How many lines of `text` (an atom's document or file) come before its code: the header's, 0 without one. */
export function codeLineOffset(text: string): number {
  const match = HEADER.exec(text);
  if (!match || !/(^|\n)\s*\*?\s*@(kind|param|returns?|requires|example)\b/.test(match[1]!)) return 0;
  return match[0].split('\n').length - 1;
}

/** A place a message names in the code ("at line 3, column 5 of the code"), found by inDocumentLines. */
const CODE_PLACE = /\bat line (\d+)(?:, column (\d+))? of the code\b/g;

/**
 * A message about the code (which names lines of the code, as an agent sent it) for a person looking at
 * the whole document: each "at line N[, column M] of the code" becomes "at line N+offset[, column M]",
 * the line the editor or the file shows. `offset` is codeLineOffset of that document.
 */
export function inDocumentLines(message: string, offset: number): string {
  return message.replace(CODE_PLACE, (_m, line: string, column: string | undefined) => `at line ${Number(line) + offset}${column ? `, column ${column}` : ''}`);
}

/** The first place (1-based line and column of the document) a message names, if any. */
export function documentPlace(message: string, offset: number): { line: number; column: number } | undefined {
  const m = new RegExp(CODE_PLACE.source).exec(message);
  return m ? { line: Number(m[1]) + offset, column: m[2] ? Number(m[2]) : 1 } : undefined;
}
