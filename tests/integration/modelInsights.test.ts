// The Models page's facts: listModels describes each GGUF (architecture, parameters, quantisation,
// trained context, layers) and estimates whether it fits this machine, with node-llama-cpp's
// GgufInsights on the real stories260K; a file that is not a GGUF says why. The recommended list
// offers hf: URIs the download box accepts, for 8, 16 and 24 GB.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Workbench } from "../../main/api/Workbench.js";
import { fitSummary, fitVerdict } from "../../main/api/modelInsights.js";
import { checkCall } from "../../shared/api/methodTable.js";
import { recommendedModels } from "../../shared/recommendedModels.js";

const model = "/work/shared/models/stories260K.gguf";
const dir = mkdtempSync(join(tmpdir(), "spade-insights-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!existsSync(model))("listModels with GgufInsights", () => {
  it("describes a real GGUF and estimates its fit; names a broken file's problem", async () => {
    const modelsDir = join(dir, "models");
    mkdirSync(modelsDir);
    copyFileSync(model, join(modelsDir, "stories260K.gguf"));
    writeFileSync(join(modelsDir, "broken.gguf"), "this is not a model");
    const workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), modelsDir, runtime: null, runControl: null, modelInsightsGpu: false });
    try {
      const { files } = await workbench.api.listModels({});
      expect(files.map((file) => file.name)).toEqual(["broken.gguf", "stories260K.gguf"]);
      const [broken, stories] = files;
      expect(broken!.insights).toBeNull();
      expect(broken!.insightsError).toMatch(/^cannot read broken\.gguf as a GGUF model: /);
      const insights = stories!.insights!;
      expect(insights).toMatchObject({ architecture: "llama", quantization: "F32", contextLength: 2048 });
      expect(insights.parameters).toBeGreaterThan(200_000);
      expect(insights.parameters).toBeLessThan(400_000);
      expect(insights.totalLayers).toBeGreaterThanOrEqual(5);
      expect(insights.fit).toMatchObject({ verdict: "cpu", gpu: null, gpuLayers: 0, contextSize: 2048, vramBytes: 0 });
      expect(insights.fit.ramBytes).toBeGreaterThan(stories!.bytes / 2);
      expect(insights.fit.ramBytes).toBeLessThan(insights.fit.machineRamBytes);
      expect(insights.fit.summary).toMatch(/^Runs on the CPU from RAM: about [\d.]+ MB of [\d.]+ GB with a 2,048-token context/);
    } finally {
      await workbench.close();
    }
  }, 60_000);
});

describe("fit verdicts", () => {
  const gb = 1024 ** 3;
  it("tells GPU, partial, CPU and too big apart", () => {
    expect(fitVerdict(true, 33, 33, 1 * gb, 32 * gb, 1)).toBe("gpu");
    expect(fitVerdict(true, 10, 33, 8 * gb, 32 * gb, 0.5)).toBe("partial");
    expect(fitVerdict(false, 0, 33, 8 * gb, 32 * gb, 0.4)).toBe("cpu");
    expect(fitVerdict(false, 0, 65, 40 * gb, 16 * gb, 0)).toBe("no");
    const summary = fitSummary({ verdict: "no", summary: "", gpu: null, gpuLayers: 0, contextSize: 4096, ramBytes: 40 * gb, vramBytes: 0, machineRamBytes: 16 * gb, machineVramBytes: 0 }, 65);
    expect(summary).toBe("Too big for this machine: needs about 40.0 GB; it has 16.0 GB RAM. Pick a smaller model or a smaller quantisation.");
  });
});

describe("recommended models", () => {
  it("offers hf: URIs the download box accepts, for 8, 16 and 24 GB", () => {
    for (const entry of recommendedModels) {
      expect(entry.uri).toMatch(/^hf:[\w.-]+\/[\w.-]+-GGUF:Q4_K_M$/);
      expect(() => checkCall("downloadModel", { uri: entry.uri })).not.toThrow();
      expect(entry.fileGb).toBeLessThan(entry.memoryGb);
    }
    for (const memory of [8, 16, 24]) expect(recommendedModels.some((entry) => entry.memoryGb === memory), `${memory} GB`).toBe(true);
  });
});
