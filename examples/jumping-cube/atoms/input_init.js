/**
 * Keyboard and pointer input: arrow keys or A/D move, space, W or the up arrow jump, and a click or tap
 * jumps too. Writes key_left, key_right and jump_pressed into the game state.
 *
 * @kind feature
 * @returns {void} done
 * @requires game_state
 */
function input_init() {
  const keys = { ArrowLeft: 'key_left', KeyA: 'key_left', ArrowRight: 'key_right', KeyD: 'key_right' };
  const jump = ['Space', 'ArrowUp', 'KeyW'];
  window.addEventListener('keydown', (e) => {
    if (keys[e.code]) game_state(keys[e.code], 1);
    if (jump.includes(e.code) && !e.repeat) game_state('jump_pressed', 1);
    if (keys[e.code] || jump.includes(e.code)) e.preventDefault();
  });
  window.addEventListener('keyup', (e) => {
    if (keys[e.code]) game_state(keys[e.code], 0);
  });
  window.addEventListener('pointerdown', () => game_state('jump_pressed', 1));
}
