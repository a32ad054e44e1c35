/**
 * Draws the jump counter, the jumps left in the air and how to play.
 *
 * @kind feature
 * @param {number} jumps - Jumps so far
 * @param {number} jumps_left - Jumps left before landing
 * @returns {void} done
 * @requires rgb_string
 */
function draw_hud(jumps, jumps_left) {
  const ctx = document.getElementById('game').getContext('2d');
  ctx.fillStyle = rgb_string([255, 255, 255]);
  ctx.font = '16px sans-serif';
  ctx.fillText('Jumps: ' + jumps + '   Air jumps left: ' + jumps_left, 14, 26);
  ctx.fillStyle = rgb_string([190, 200, 215]);
  ctx.font = '13px sans-serif';
  ctx.fillText('\u2190 \u2192 or A/D to move, space or click to jump (twice for a double jump)', 14, 48);
}
