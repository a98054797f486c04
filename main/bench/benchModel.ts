import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { appRoot } from "../paths.js";

/** The model the model-bound sections measure: SPADE_BENCH_MODEL, else the team's test model beside the repository. */
export function benchModel(): string | null {
  const path = process.env.SPADE_BENCH_MODEL ?? resolve(appRoot(), "../shared/models/stories260K.gguf");
  return existsSync(path) ? path : null;
}
