/**
 * Draws the sky, slowly changing colour over time, and the ground.
 *
 * @kind feature
 * @param {number} time - Seconds since the game started
 * @returns {void} done
 * @requires color_lerp physics_config rgb_string
 */
function draw_background(time) {
  const ctx = document.getElementById('game').getContext('2d');
  const w = physics_config('world_width');
  const h = physics_config('world_height');
  const ground = physics_config('ground_y');
  const t = (Math.sin(time * 0.3) + 1) / 2;
  ctx.fillStyle = rgb_string(color_lerp([18, 22, 38], [44, 70, 112], t));
  ctx.fillRect(0, 0, w, ground);
  ctx.fillStyle = rgb_string([58, 90, 64]);
  ctx.fillRect(0, ground, w, h - ground);
  ctx.fillStyle = rgb_string([88, 129, 87]);
  ctx.fillRect(0, ground, w, 6);
}
