// One GPU shared by inference and training (issue 20 §3): when the inference model is released.
import { describe, expect, it } from "vitest";
import { shouldReleaseModel } from "../../main/training/shouldReleaseModel.js";

describe("shouldReleaseModel", () => {
  it.each(["cuda", "metal", "vulkan"])("releases a model llama.cpp holds on %s when the config says nothing", (gpu) => {
    expect(shouldReleaseModel(null, gpu)).toBe(true);
  });

  it("keeps a model on the CPU, and on a backend that cannot say where it runs", () => {
    expect(shouldReleaseModel(null, false)).toBe(false);
    expect(shouldReleaseModel(null, undefined)).toBe(false);
  });

  it("training.unloadModel decides when given", () => {
    expect(shouldReleaseModel(false, "cuda")).toBe(false);
    expect(shouldReleaseModel(true, false)).toBe(true);
  });
});
