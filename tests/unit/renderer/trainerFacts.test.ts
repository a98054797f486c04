// The Settings page's trainer card and the Models page's recommendation verdicts (issue 20 §4, §5).
import { describe, expect, it } from "vitest";
import type { TrainerEnvironment } from "../../../shared/trainerEnvironment.js";
import { recommendedModels } from "../../../shared/recommendedModels.js";
import { prepareRecommendations } from "../../../renderer/src/features/models/lib/prepareRecommendations.js";
import { prepareTrainerFacts } from "../../../renderer/src/features/models/lib/prepareTrainerFacts.js";

const GiB = 2 ** 30;
const report: TrainerEnvironment = {
  python: "/usr/bin/python3",
  source: "debian",
  executable: "/usr/bin/python3",
  pythonVersion: "3.11.2",
  packages: { torch: "1.13.0", numpy: "1.24.2", transformers: null, peft: null, gguf: null },
  device: { name: "CPU", kind: "cpu", freeBytes: 20 * GiB, totalBytes: 24 * GiB },
  trainer: "gguf",
  gguf: { architectures: ["llama", "qwen2", "qwen3"], tensorTypes: ["F32", "F16", "Q8_0"] },
  model: null,
  blas: { core: "Haswell", threads: 2, config: "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64", coretype: null, fallback: null },
  problems: [],
};

describe("prepareTrainerFacts", () => {
  it("shows the interpreter and where it came from, torch, the device, free memory and what it trains", () => {
    const facts = prepareTrainerFacts(report);
    expect(facts.ready).toBe(true);
    expect(Object.fromEntries(facts.rows)).toEqual({
      Python: "/usr/bin/python3 (from debian, Python 3.11.2)",
      PyTorch: "1.13.0",
      NumPy: "1.24.2",
      "transformers / PEFT (hf trainer)": "not installed / not installed",
      Device: "cpu (CPU)",
      "Free memory": "20.0 GiB of 24.0 GiB",
      "BLAS (CPU)": "OpenBLAS 0.3.21, Haswell kernels",
      "Trains (gguf trainer)": "llama, qwen2, qwen3 models; tensors F32, F16, Q8_0",
    });
  });

  it("says where the trainer replaced the kernels OpenBLAS picks alone, and when torch's BLAS is not OpenBLAS", () => {
    const replaced = prepareTrainerFacts({ ...report, blas: { ...report.blas!, core: "SkylakeX", coretype: "SkylakeX", fallback: "Prescott" } });
    expect(Object.fromEntries(replaced.rows)["BLAS (CPU)"]).toBe("OpenBLAS 0.3.21, SkylakeX kernels (alone it picks Prescott on this CPU, newer than the library: the trainer sets OPENBLAS_CORETYPE=SkylakeX)");
    expect(Object.fromEntries(prepareTrainerFacts({ ...report, blas: null }).rows)["BLAS (CPU)"]).toBe("not OpenBLAS (PyTorch's own BLAS or MKL), or torch did not import");
    expect(Object.fromEntries(prepareTrainerFacts({ ...report, packages: {}, blas: null }).rows)["BLAS (CPU)"]).toBeUndefined();
  });

  it("a trainer that cannot run is not ready and lists its problems", () => {
    const facts = prepareTrainerFacts({ ...report, packages: {}, executable: null, problems: ["cannot run python3: run `spade trainer setup`"] });
    expect(facts.ready).toBe(false);
    expect(facts.problems).toEqual(["cannot run python3: run `spade trainer setup`"]);
    expect(Object.fromEntries(facts.rows).PyTorch).toBe("not installed");
  });
});

describe("prepareRecommendations", () => {
  it("gives every quantisation of every listed model a verdict for this machine's memory", () => {
    const rows = prepareRecommendations(recommendedModels, 8 * GiB);
    expect(rows).toHaveLength(recommendedModels.length);
    const qwen3 = rows.find((row) => row.model.label.startsWith("Qwen3 4B"))!;
    expect(qwen3.quantisations.find((q) => q.name === "Q4_K_M")).toMatchObject({ verdict: "plays", uri: "hf:unsloth/Qwen3-4B-Instruct-2507-GGUF:Q4_K_M" });
    const coder15 = rows.find((row) => row.model.label.startsWith("Qwen2.5-Coder 1.5B"))!;
    expect(coder15.quantisations.find((q) => q.name === "Q4_K_M")!.verdict).toBe("plays and trains");
    const coder32 = rows.find((row) => row.model.label.startsWith("Qwen2.5-Coder 32B"))!;
    expect(coder32.quantisations.every((q) => q.verdict === "too big")).toBe(true);
    const coder7 = rows.find((row) => row.model.label.startsWith("Qwen2.5-Coder 7B"))!.quantisations;
    expect(coder7.find((q) => q.name === "Q4_K_M")!.verdict).toBe("plays");
    expect(coder7.find((q) => q.name === "F16")!.verdict).toBe("too big");
  });

  it("gives no verdict while this machine is being checked, rather than one for a memory it has not measured", () => {
    const rows = prepareRecommendations(recommendedModels, null, null, true);
    expect(rows.flatMap((row) => row.quantisations.map((q) => q.verdict))).toEqual(rows.flatMap((row) => row.quantisations.map(() => "checking…")));
    expect(prepareRecommendations(recommendedModels, null, null, false)[0]!.quantisations[0]!.verdict).not.toBe("checking…");
  });

  it("on a CPU trainer, predicts training in float32 with the attention weights kept (the trainer's path there)", () => {
    const coder7 = (kind: string | null) => prepareRecommendations(recommendedModels, 12 * GiB, kind).find((row) => row.model.label.startsWith("Qwen2.5-Coder 7B"))!.quantisations.find((q) => q.name === "Q4_K_M")!;
    expect(coder7("cuda").verdict).toBe("plays and trains");
    expect(coder7("cpu").verdict).toBe("plays");
    // float32 activations and working copies, and two float32 copies of the attention weights of the longest line
    expect(coder7("cpu").trainGb!).toBeGreaterThan(coder7("cuda").trainGb! + 2.5);
  });

  it("without the machine's memory, judges each model against the card it is picked for", () => {
    const coder32 = prepareRecommendations(recommendedModels, null).find((row) => row.model.label.startsWith("Qwen2.5-Coder 32B"))!;
    expect(coder32.quantisations.find((q) => q.name === "Q4_K_M")!.verdict).toBe("plays");
  });
});
