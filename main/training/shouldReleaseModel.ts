/**
 * Whether the inference model is released while a round trains: `training.unloadModel` when the
 * config says so, else whenever llama.cpp holds a GPU as resolved at load (`gpu: "auto"` that
 * found CUDA, Metal or Vulkan included; a config without `backend.gpu` is "auto"). On the CPU, or
 * on a backend that cannot say (remote), the model stays.
 */
export function shouldReleaseModel(unloadModel: boolean | null, resolvedGpu: string | false | undefined): boolean {
  if (unloadModel !== null) return unloadModel;
  return typeof resolvedGpu === "string";
}
