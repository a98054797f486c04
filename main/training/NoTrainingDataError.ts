/** The export for a training job came out empty: there is nothing to train on yet. */
export class NoTrainingDataError extends Error {
  override readonly name = "NoTrainingDataError";
}
