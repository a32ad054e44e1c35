/**
 * Words for full-text search. Atom names and identifiers are split on `_`, digits and camelCase
 * humps (`playerJump`, `player_jump` -> player, jump), lowercased and stemmed (jumping -> jump),
 * so "player jumping" meets `player_jump`. Common English words carry no meaning here.
 */
import stem from 'wink-porter2-stemmer';

const STOP_WORDS = new Set(
  (
    'a an and are as at be been by can could do does for from get gets has have how i if in into is it its ' +
    'me my of on or our so some such than that the their them then there these this those to was we what ' +
    'when where which while who why will with would you your find function functions atom atoms code'
  ).split(' '),
);

/**
 * Splits text into lowercase words: separators, snake_case and camelCase boundaries, letters and
 * digits apart (`atan2` -> atan, 2). Every atom's fields go through here when a workspace's index
 * is built: a loop over the characters, where a split on a look-behind pattern was a tenth of it.
 */
export function splitWords(text: string): string[] {
  const lower = (HAS_UPPER.test(text) ? text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2') : text).toLowerCase();
  const words: string[] = [];
  let start = -1;
  let inDigits = false;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    const digit = c >= 48 && c <= 57;
    if (!digit && (c < 97 || c > 122)) {
      if (start >= 0) words.push(lower.slice(start, i));
      start = -1;
    } else if (start < 0) {
      start = i;
    } else if (digit !== inDigits) {
      words.push(lower.slice(start, i));
      start = i;
    }
    inDigits = digit;
  }
  if (start >= 0) words.push(lower.slice(start));
  return words;
}

const HAS_UPPER = /[A-Z]/;

/** Stems by word: a workspace has a few thousand distinct words and stemming is the slow part. */
const stems = new Map<string, string | null>();
const MAX_CACHED_STEMS = 100_000;

/** The searchable form of one word, or null for a word that carries no meaning. */
export function normalizeTerm(word: string): string | null {
  const cached = stems.get(word);
  if (cached !== undefined) return cached;
  const lower = word.toLowerCase();
  const result = STOP_WORDS.has(lower) ? null : stem(lower);
  if (stems.size >= MAX_CACHED_STEMS) stems.clear();
  stems.set(word, result);
  return result;
}

/** Meaningful, stemmed words of a text, in order. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of splitWords(text)) {
    const t = normalizeTerm(w);
    if (t) out.push(t);
  }
  return out;
}

/**
 * A token is written like code when it has a dot inside or in front (`Math.hypot`, `.splice`), an
 * underscore, a `$`, a call's parenthesis (`toString(16)`) or a camelCase hump, or is a word with
 * digits (`len2`, `atan2`, `utf8`): such a token names a variable or an API more often than it
 * says something in English. A sentence's full stop or parenthesis ("(between min and max)") does
 * not make its words code. Acronyms (`HP`, `NFD`) stay words: they have related words (hp, health).
 */
export const CODE_LIKE = /\w\.\w|^\.\w|[_$]|\w\(|[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]/;

/** The text without its tokens written like code: "toString(16) padStart digits" -> "digits". */
export function withoutCode(text: string): string {
  return text
    .split(/\s+/)
    .filter((t) => t.length > 0 && !CODE_LIKE.test(t))
    .join(' ');
}

/** A query written as an atom name: "Math Clamp", "mathClamp", "math-clamp" -> math_clamp. */
export function asAtomName(query: string): string {
  return splitWords(query.trim()).join('_');
}
