import type { GgufInfo } from "../llm/gguf/GgufInfo.js";
import { UntrainableTensorTypeError } from "./UntrainableTensorTypeError.js";

/**
 * The tensor types the built-in "gguf" trainer dequantises: the table of
 * resources/trainers/model/spade_quants.py (a test keeps the two equal).
 */
export const ggufTrainerTensorTypes: readonly string[] = ["F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"];

/**
 * Refuses, before a run spends its first rollout, a base model the gguf trainer could not load at
 * the first round: throws UntrainableTensorTypeError naming the file, the first tensor of an
 * unsupported type, and the type.
 */
export function checkGgufTrainerTypes(info: GgufInfo): void {
  const untrainable = info.tensors.find((tensor) => !ggufTrainerTensorTypes.includes(tensor.typeName));
  if (untrainable) throw new UntrainableTensorTypeError(info.path, untrainable.name, untrainable.typeName, ggufTrainerTensorTypes);
}
