/**
 * Words that mean the same thing in game and application code. Search adds a query word's
 * related words to the full-text query with a lower weight, so "monster" meets `enemy_patrol`
 * and "money" meets `coin_collect`. The embedding model should make these links by itself;
 * Universal Sentence Encoder lite (the model that ships offline) makes too few of them for
 * short queries. Groups are general vocabulary, not names of particular atoms; extend freely.
 */
import { terms } from './words.js';

const GROUPS: string[] = [
  // movement
  'up upward upwards rise ascend jump leap hop climb lift',
  'down downward downwards fall drop descend sink gravity',
  'left right sideways horizontal strafe',
  'move walk run movement motion travel',
  'speed velocity fast pace acceleration accelerate',
  'slow brake friction decelerate damping drag',
  'air airborne midair',
  'ground floor platform land landing grounded',
  'patrol wander roam pace',
  'chase follow pursue track seek steer hunt home',
  'teleport warp',
  // actors
  'character player hero avatar protagonist',
  'enemy monster foe opponent mob creature villain baddie',
  'entity object actor body',
  'npc villager',
  // combat and health
  'hurt damage hit injure harm wound blow strike struck attack',
  'health hp life hitpoints vitality',
  'lives life',
  'die death dead kill killed perish',
  'armor armour shield protection defense defence',
  'invulnerable invincible immune immunity',
  'heal regenerate restore',
  // economy and scoring
  'money coin coins gold cash currency loot',
  'collect pickup pick gather grab',
  'score points',
  'best high record top',
  'reward bonus prize',
  // persistence
  'save store persist remember storage localstorage',
  'load restore read',
  'settings config configuration constants options parameters preferences',
  // input
  'key keys button buttons keyboard',
  'input control controls press pressed',
  'bind binding bindings mapping',
  'mouse click pointer cursor tap touch',
  // time and loop
  'time timer clock countdown deadline',
  'frame tick update step loop',
  'fps framerate',
  'pause freeze halt suspend resume',
  'start begin init initialize launch boot entry setup main',
  'stop end finish quit exit',
  // world
  'level stage world map tilemap layout',
  'tile cell grid',
  'spawn create appear generate instantiate',
  'scene screen state mode',
  'title menu',
  // graphics and effects
  'draw render paint display show',
  'sprite image picture texture atlas sheet',
  'camera view viewport',
  'shake jolt tremble rumble wobble',
  'explosion explode burst blast particle particles debris',
  'color colour rgb tint hue',
  'bar meter gauge',
  'text label font hud',
  'animation animate tween',
  // sound
  'sound noise audio sfx effect',
  'music soundtrack song track bgm tune',
  'volume loudness',
  // math
  'clamp bound bounds limit range constrain',
  'interpolate interpolation lerp blend mix tween',
  'length magnitude distance size norm',
  'normalize unit',
  'angle degrees radians rotation rotate',
  'random chance roll dice',
  'collide collision overlap intersect touch touching',
  'round floor ceil truncate',
  'average mean smooth smoothed',
  'convert conversion transform',
  'vector direction',
  'parse parsing decode',
  'format pad padded padding zero zeros',
];

/** stem -> the words (as written) related to it. */
const related = new Map<string, Set<string>>();
for (const group of GROUPS) {
  const words = group.split(' ');
  for (const word of words) {
    const [stem] = terms(word);
    if (!stem) continue;
    const set = related.get(stem) ?? new Set<string>();
    for (const other of words) if (terms(other)[0] !== stem) set.add(other);
    related.set(stem, set);
  }
}

/** Words related to any of the query's words, minus the query's own. */
export function relatedWords(query: string): string[] {
  const own = new Set(terms(query));
  const out = new Set<string>();
  for (const t of own) for (const w of related.get(t) ?? []) if (!own.has(terms(w)[0]!)) out.add(w);
  return [...out];
}
