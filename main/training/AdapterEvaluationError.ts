/** The adapter was trained and registered, but its held-out evaluation failed (it stays "ready"). */
export class AdapterEvaluationError extends Error {
  override readonly name = "AdapterEvaluationError";
}
