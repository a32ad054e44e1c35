/**
 * Browser stand-ins for runs of atoms that draw, read input or keep scores: `document` (every
 * element is a stub that can hand out a recording canvas 2D context), `window` (the global
 * object, with a size, listeners and a requestAnimationFrame that records but never calls back),
 * an in-memory `localStorage` and `performance.now()`. They are not a real DOM: nothing is drawn,
 * no event ever fires, and storage starts empty and ends with the run.
 *
 * The stubs are plain JavaScript evaluated inside the sandbox, so they add no bridge to the host:
 * what they record comes out once, after the run, as JSON text that the host checks field by field.
 * They are installed only when the atoms' code names one of them, so a pure atom's sandbox holds the
 * language and console alone, as before; and because they are evaluated as a file of their own,
 * they move no atom's line numbers.
 */
import type { StubReport } from './types.js';

/** The file name stacks show for the stubs' own frames (never an atom's). */
export const STUBS_FILE = 'stubs.js';

/** A name that asks for the stubs. Matching a comment or a string only installs them needlessly, which is harmless. */
const BROWSER_NAME =
  /\b(?:document|window|localStorage|performance|requestAnimationFrame|cancelAnimationFrame|innerWidth|innerHeight|devicePixelRatio|addEventListener)\b/;

export function needsStubs(programText: string): boolean {
  return BROWSER_NAME.test(programText);
}

const MAX_TEXTS = 10;
const MAX_LISTENERS = 20;

/**
 * Evaluates to a function that returns the record as JSON. Everything it relies on is taken
 * before any atom runs, and its bookkeeping objects have no prototype, so an atom that rewrites
 * built-ins cannot change what is counted (at worst it garbles the report, which the host drops).
 */
export const STUBS_SOURCE = `(() => {
  const G = globalThis, define = Object.defineProperty, keysOf = Object.keys, bare = Object.create, now = Date.now;
  const stringify = JSON.stringify, str = String, t0 = now();
  const used = bare(null), order = [], calls = bare(null), texts = [], listeners = [], seenListener = bare(null);
  let total = 0, frames = 0;
  const touch = (name) => { if (!used[name]) { used[name] = true; order[order.length] = name; } };
  const count = (method) => { touch('canvas 2D'); calls[method] = (calls[method] || 0) + 1; total++; };
  const listen = (target, type) => {
    const key = target + ' ' + str(type);
    if (!seenListener[key] && listeners.length < ${MAX_LISTENERS}) { seenListener[key] = true; listeners[listeners.length] = key; }
  };
  const METHODS = ['fillRect', 'strokeRect', 'clearRect', 'strokeText', 'beginPath', 'closePath', 'arc', 'arcTo', 'ellipse',
    'rect', 'roundRect', 'fill', 'stroke', 'clip', 'moveTo', 'lineTo', 'quadraticCurveTo', 'bezierCurveTo', 'save', 'restore',
    'translate', 'scale', 'rotate', 'transform', 'setTransform', 'resetTransform', 'drawImage', 'setLineDash', 'putImageData'];
  const gradient = () => ({ addColorStop() {} });
  function makeContext(canvas) {
    const ctx = { canvas, fillStyle: '#000000', strokeStyle: '#000000', font: '10px sans-serif', lineWidth: 1, globalAlpha: 1,
      textAlign: 'start', textBaseline: 'alphabetic', lineCap: 'butt', lineJoin: 'miter', shadowBlur: 0,
      shadowColor: 'rgba(0, 0, 0, 0)', globalCompositeOperation: 'source-over', imageSmoothingEnabled: true };
    for (let i = 0; i < METHODS.length; i++) { const m = METHODS[i]; ctx[m] = function () { count(m); }; }
    ctx.fillText = function (text) { count('fillText'); if (texts.length < ${MAX_TEXTS}) texts[texts.length] = str(text).slice(0, 80); };
    ctx.measureText = function (text) {
      count('measureText');
      const px = /(\\d+(?:\\.\\d+)?)px/.exec(str(ctx.font));
      return { width: str(text).length * (px ? Number(px[1]) : 10) * 0.6 };
    };
    ctx.createLinearGradient = function () { count('createLinearGradient'); return gradient(); };
    ctx.createRadialGradient = function () { count('createRadialGradient'); return gradient(); };
    ctx.createPattern = function () { count('createPattern'); return gradient(); };
    ctx.getLineDash = () => [];
    ctx.isPointInPath = () => false;
    return ctx;
  }
  // What a real element has and this stub does not: a call says so, instead of "not a function".
  const MISSING = ['animate', 'attachShadow', 'getClientRects', 'requestFullscreen', 'requestPointerLock', 'scrollTo', 'scrollBy',
    'showModal', 'show', 'close', 'select', 'setSelectionRange', 'setPointerCapture', 'releasePointerCapture', 'insertAdjacentElement',
    'getAnimations', 'checkValidity', 'reportValidity', 'submit', 'reset', 'play', 'pause', 'toDataURL', 'toBlob'];
  const lacks = (what) => function () { throw new TypeError(what + '() is not in the sandbox stub element (run_atom has no real DOM): test the logic apart from it, or in the live preview'); };
  function matches(el, selector) {
    const s = str(selector).trim();
    if (s[0] === '#') return el.id === s.slice(1);
    if (s[0] === '.') return (' ' + el.className + ' ').indexOf(' ' + s.slice(1) + ' ') >= 0;
    const attr = /^\\[data-([\\w-]+)(?:="?([^"\\]]*)"?)?\\]$/.exec(s);
    if (attr) { const key = attr[1].replace(/-(\\w)/g, (_, c) => c.toUpperCase()); return key in el.dataset && (attr[2] === undefined || el.dataset[key] === attr[2]); }
    return el.tagName === s.toUpperCase();
  }
  function descendants(el, out) { for (let i = 0; i < el.children.length; i++) { out[out.length] = el.children[i]; descendants(el.children[i], out); } return out; }
  function makeElement(tag, id) {
    let context = null;
    const attributes = bare(null);
    const el = { tagName: str(tag).toUpperCase(), id: id === undefined ? '' : str(id), width: 300, height: 150,
      style: {}, dataset: {}, className: '', textContent: '', innerText: '', innerHTML: '', value: '', checked: false, disabled: false,
      children: [], childNodes: [], parentNode: null, parentElement: null,
      get firstChild() { return el.children[0] || null; }, get lastChild() { return el.children[el.children.length - 1] || null; },
      classList: { add() {}, remove() {}, toggle() { return false; }, contains() { return false; } },
      getContext(type) { if (str(type) !== '2d') return null; context = context || makeContext(el); touch('canvas 2D'); return context; },
      getBoundingClientRect() { return { left: 0, top: 0, x: 0, y: 0, width: el.width, height: el.height, right: el.width, bottom: el.height }; },
      addEventListener(type) { listen(el.id ? '#' + el.id : el.tagName.toLowerCase(), type); },
      removeEventListener() {}, dispatchEvent() { return true; }, click() {}, focus() {}, blur() {}, scrollIntoView() {},
      appendChild(child) { if (child && typeof child === 'object') { child.parentNode = el; child.parentElement = el; el.children[el.children.length] = child; el.childNodes = el.children; } return child; },
      append() { for (let i = 0; i < arguments.length; i++) el.appendChild(arguments[i]); },
      prepend() { for (let i = arguments.length - 1; i >= 0; i--) el.insertBefore(arguments[i], el.children[0] || null); },
      insertBefore(child, before) { const at = el.children.indexOf(before); if (at < 0) return el.appendChild(child); el.children.splice(at, 0, child); child.parentNode = el; return child; },
      removeChild(child) { const at = el.children.indexOf(child); if (at >= 0) el.children.splice(at, 1); return child; },
      replaceChildren() { el.children = []; el.childNodes = el.children; el.append.apply(el, arguments); },
      remove() { if (el.parentNode) el.parentNode.removeChild(el); },
      contains(other) { return other === el || descendants(el, []).indexOf(other) >= 0; },
      matches(selector) { return matches(el, selector); },
      closest(selector) { for (let e = el; e; e = e.parentNode) if (matches(e, selector)) return e; return null; },
      querySelector(selector) { const all = descendants(el, []); for (let i = 0; i < all.length; i++) if (matches(all[i], selector)) return all[i]; return null; },
      querySelectorAll(selector) { return descendants(el, []).filter((e) => matches(e, selector)); },
      getElementsByTagName(name) { return el.querySelectorAll(name); },
      cloneNode() { return makeElement(tag); },
      insertAdjacentHTML() {},
      setAttribute(name, value) { attributes[str(name)] = str(value); if (str(name) === 'id') el.id = str(value); },
      getAttribute(name) { return str(name) in attributes ? attributes[str(name)] : null; },
      hasAttribute(name) { return str(name) in attributes; },
      removeAttribute(name) { delete attributes[str(name)]; },
      toggleAttribute(name) { if (str(name) in attributes) { delete attributes[str(name)]; return false; } attributes[str(name)] = ''; return true; } };
    for (let i = 0; i < MISSING.length; i++) el[MISSING[i]] = lacks(MISSING[i]);
    return el;
  }
  const byId = bare(null);
  const element = (id) => (byId[id] = byId[id] || makeElement('canvas', id));
  const body = makeElement('body');
  const document = { body, documentElement: makeElement('html'), readyState: 'complete', title: '',
    getElementById: (id) => element(str(id)),
    querySelector: (selector) => (/^#/.test(str(selector)) ? element(str(selector).slice(1)) : body.querySelector(selector) || element(str(selector))),
    querySelectorAll: (selector) => (/^#/.test(str(selector)) ? [element(str(selector).slice(1))] : body.querySelectorAll(selector)),
    createElement: (tag) => makeElement(tag),
    addEventListener(type) { listen('document', type); }, removeEventListener() {} };
  const items = bare(null);
  const localStorage = {
    getItem: (key) => (str(key) in items ? items[str(key)] : null),
    setItem: (key, value) => { items[str(key)] = str(value); },
    removeItem: (key) => { delete items[str(key)]; },
    clear: () => { const k = keysOf(items); for (let i = 0; i < k.length; i++) delete items[k[i]]; },
    key: (i) => { const k = keysOf(items); return i >= 0 && i < k.length ? k[i] : null; },
    get length() { return keysOf(items).length; } };
  const performance = { now: () => now() - t0, timeOrigin: t0 };
  const global = (name, value, mark) => define(G, name, { configurable: true, enumerable: false,
    get() { touch(mark); return value; },
    set(v) { define(G, name, { value: v, writable: true, configurable: true, enumerable: true }); } });
  global('document', document, 'document');
  global('window', G, 'window');
  global('innerWidth', 800, 'window');
  global('innerHeight', 600, 'window');
  global('devicePixelRatio', 1, 'window');
  global('localStorage', localStorage, 'localStorage');
  global('performance', performance, 'performance');
  global('addEventListener', function (type) { listen('window', type); }, 'window');
  global('removeEventListener', function () {}, 'window');
  global('requestAnimationFrame', function () { frames++; return frames; }, 'requestAnimationFrame');
  global('cancelAnimationFrame', function () {}, 'requestAnimationFrame');
  return () => stringify({ used: order, calls: total, methods: calls, texts, listeners, frames, stored: keysOf(items).length });
})()`;

/** The record the stubs return, checked field by field (anything else is dropped); null if it is not a record. */
export function parseStubReport(json: string): StubReport | null {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  const strings = (v: unknown, max: number): string[] =>
    Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string').slice(0, max).map((s) => s.slice(0, 80)) : [];
  const count = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
  const used = strings(r.used, 10);
  if (used.length === 0) return null;
  const methods: Record<string, number> = {};
  if (typeof r.methods === 'object' && r.methods !== null) {
    for (const [name, n] of Object.entries(r.methods as Record<string, unknown>).slice(0, 64)) {
      if (/^[A-Za-z]{1,40}$/.test(name) && count(n) > 0) methods[name] = count(n);
    }
  }
  return {
    used,
    canvas: { calls: count(r.calls), methods, texts: strings(r.texts, MAX_TEXTS) },
    listeners: strings(r.listeners, MAX_LISTENERS),
    animationFrames: count(r.frames),
    storedKeys: count(r.stored),
  };
}

/**
 * One line for the answer, e.g. `Stubs used (not a real DOM: nothing is drawn, no event fires):
 * document, canvas 2D (4 calls: fillRect ×3, fillText ×1 "Score: 3"), window (listeners: document keydown)`.
 */
export function describeStubs(report: StubReport): string {
  const parts = report.used.map((name) => {
    if (name === 'canvas 2D' && report.canvas.calls > 0) {
      const methods = Object.entries(report.canvas.methods)
        .sort((a, b) => b[1] - a[1])
        .map(([m, n]) => `${m} ×${n}${m === 'fillText' && report.canvas.texts.length > 0 ? ` ${report.canvas.texts.slice(0, 3).map((t) => JSON.stringify(t)).join(' ')}` : ''}`);
      return `canvas 2D (${report.canvas.calls} call${report.canvas.calls === 1 ? '' : 's'}: ${methods.join(', ')})`;
    }
    if (name === 'requestAnimationFrame') return `requestAnimationFrame ×${report.animationFrames} (callbacks not run)`;
    if (name === 'localStorage') return `localStorage (in memory, ${report.storedKeys} key${report.storedKeys === 1 ? '' : 's'} at the end)`;
    return name;
  });
  const listeners = report.listeners.length > 0 ? `; listeners added (never fired): ${report.listeners.join(', ')}` : '';
  return `Stubs used (not a real DOM: nothing is drawn, no event fires): ${parts.join(', ')}${listeners}.`;
}
