/**
 * Draws the cube at (x, y); it turns from orange to sky blue the higher it is.
 *
 * @kind feature
 * @param {number} x - Left edge, px
 * @param {number} y - Top edge, px
 * @returns {void} done
 * @requires color_lerp physics_config rgb_string
 */
function draw_cube(x, y) {
  const ctx = document.getElementById('game').getContext('2d');
  const size = physics_config('cube_size');
  const height = physics_config('ground_y') - size - y;
  ctx.fillStyle = rgb_string(color_lerp([242, 166, 90], [120, 200, 255], height / 220));
  ctx.fillRect(x, y, size, size);
  ctx.strokeStyle = rgb_string([255, 255, 255]);
  ctx.lineWidth = 2;
  ctx.strokeRect(x + 1, y + 1, size - 2, size - 2);
}
