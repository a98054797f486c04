import { AdapterMismatchError } from "./AdapterMismatchError.js";
import { describe } from "./checkModelFile.js";
import type { GgufInfo, GgufTensorInfo } from "./GgufInfo.js";
import { readGgufInfo } from "./readGgufInfo.js";

const suffixA = ".lora_a";
const suffixB = ".lora_b";

/**
 * Reads and checks a LoRA adapter GGUF against its base model before node-llama-cpp loads it:
 * `general.type = "adapter"`, `adapter.type = "lora"`, a numeric `adapter.lora.alpha`, the base
 * model's architecture, and paired `<name>.lora_a` / `<name>.lora_b` tensors. When `base` is the
 * base model's GgufInfo (not just its architecture), each pair must also target a base tensor of
 * matching shape. Malformed files throw GgufFormatError; a file that is readable but not a fitting
 * adapter throws AdapterMismatchError.
 */
export async function checkAdapterFile(path: string, base: string | GgufInfo): Promise<GgufInfo> {
  const info = await readGgufInfo(path);
  const fail = (problem: string): never => {
    throw new AdapterMismatchError(path, problem);
  };
  const baseArchitecture = typeof base === "string" ? base : base.architecture;
  if (info.fileType !== "adapter") fail(`general.type is ${describe(info.metadata["general.type"])}, expected "adapter": this is not a LoRA adapter`);
  const adapterType = info.metadata["adapter.type"];
  if (adapterType !== "lora") fail(`adapter.type is ${describe(adapterType)}, expected "lora"`);
  const alpha = info.metadata["adapter.lora.alpha"];
  if (typeof alpha !== "number" || !Number.isFinite(alpha)) fail(`adapter.lora.alpha is ${describe(alpha)}, expected a number`);
  if (info.architecture !== baseArchitecture) {
    fail(`the adapter is for architecture ${describe(info.architecture ?? undefined)}, but the base model is "${baseArchitecture}"`);
  }
  const pairs = pairTensors(info, fail);
  if (pairs.size === 0) fail("the adapter holds no .lora_a/.lora_b tensor pairs");
  if (typeof base !== "string") checkAgainstBase(pairs, base, fail);
  return info;
}

interface LoraPair {
  a?: GgufTensorInfo;
  b?: GgufTensorInfo;
}

function pairTensors(info: GgufInfo, fail: (problem: string) => never): Map<string, LoraPair> {
  const pairs = new Map<string, LoraPair>();
  for (const tensor of info.tensors) {
    const isA = tensor.name.endsWith(suffixA);
    if (!isA && !tensor.name.endsWith(suffixB)) fail(`tensor "${tensor.name}" is not named <base tensor>.lora_a or .lora_b`);
    const target = tensor.name.slice(0, -suffixA.length);
    const pair = pairs.get(target) ?? {};
    pair[isA ? "a" : "b"] = tensor;
    pairs.set(target, pair);
  }
  for (const [target, { a, b }] of pairs) {
    if (!a || !b) fail(`tensor "${target}${a ? suffixA : suffixB}" has no matching ${a ? suffixB : suffixA}`);
    if (a.dims[1] !== b.dims[0]) {
      fail(`"${target}": lora_a is [${a.dims}] and lora_b is [${b.dims}], expected lora_a [in, rank] and lora_b [rank, out]`);
    }
  }
  return pairs;
}

function checkAgainstBase(pairs: Map<string, LoraPair>, base: GgufInfo, fail: (problem: string) => never): void {
  const baseTensors = new Map(base.tensors.map((tensor) => [tensor.name, tensor]));
  for (const [target, { a, b }] of pairs) {
    const weight = baseTensors.get(target);
    if (!weight) fail(`the adapter targets "${target}", which the base model ${base.path} does not have`);
    if (a!.dims[0] !== weight.dims[0] || b!.dims[1] !== weight.dims[1]) {
      fail(`"${target}" is [${weight.dims}] in the base model, but the adapter's lora_a is [${a!.dims}] and lora_b is [${b!.dims}]`);
    }
  }
}
