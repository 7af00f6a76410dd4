/**
 * A message an agent sent that the contract refuses (out of its bounds, or a counter batch too far
 * ahead): answered with `error` and logged for that node, never retried by the controller.
 */
export class RefusedMessage extends Error {}
