/**
 * Draws one frame from the game state: background, cube, then the HUD on top.
 *
 * @kind feature
 * @returns {void} done
 * @requires draw_background draw_cube draw_hud game_state
 */
function render_frame() {
  draw_background(game_state('time'));
  draw_cube(game_state('x'), game_state('y'));
  draw_hud(game_state('jumps'), game_state('jumps_left'));
}
