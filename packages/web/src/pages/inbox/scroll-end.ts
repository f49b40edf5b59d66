// Where a scrolled history counts as read to its end (pure: the unit tests run it without a browser).

/** How far from the end (in CSS pixels) still counts as reading the end: a line of slack for rounding and a late image. */
export const NEAR_END_PX = 48;

/** Whether a scrolled box shows its end (within `NEAR_END_PX`). */
export function isNearEnd(box: { scrollTop: number; scrollHeight: number; clientHeight: number }): boolean {
  return box.scrollHeight - box.scrollTop - box.clientHeight <= NEAR_END_PX;
}
