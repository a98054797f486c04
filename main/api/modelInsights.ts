// The Models page's facts about a GGUF file: architecture, parameters, quantisation, trained
// context, and whether it fits this machine's GPU or RAM, from node-llama-cpp's GgufInsights.
import { totalmem } from "node:os";
import type { Llama } from "node-llama-cpp";
import type { ModelFit, ModelInsights } from "../../shared/api/modelTypes.js";

/** Reads a model's insights; `llama` is the runtime whose GPU and memory the estimate is for. */
export async function readModelInsights(path: string, llama: Llama): Promise<ModelInsights> {
  const { readGgufFileInfo, GgufInsights, GgufFileType, GgmlType } = await import("node-llama-cpp");
  const info = await readGgufFileInfo(path, { readTensorInfo: true });
  const insights = await GgufInsights.from(info, llama);
  const general = info.metadata.general;
  const fileType = general?.file_type;
  // The declared file type, else the type most of the weights have (files without general.file_type).
  const dominant = insights.dominantTensorType;
  const quantization = fileType !== undefined ? (GgufFileType[fileType] ?? String(fileType)).replace(/^(MOSTLY|ALL)_/, "") : dominant !== undefined ? (GgmlType[dominant] ?? null) : null;
  const resolved = await insights.configurationResolver.resolveAndScoreConfig();
  const values = resolved.resolvedValues;
  const vram = llama.gpu === false ? { total: 0 } : await llama.getVramState();
  const machineRamBytes = totalmem();
  const fit: ModelFit = {
    verdict: fitVerdict(llama.gpu !== false, values.gpuLayers, insights.totalLayers, values.totalRamUsage, machineRamBytes, resolved.compatibilityScore),
    summary: "",
    gpu: llama.gpu === false ? null : llama.gpu,
    gpuLayers: values.gpuLayers,
    contextSize: values.contextSize,
    ramBytes: values.totalRamUsage,
    vramBytes: values.totalVramUsage,
    machineRamBytes,
    machineVramBytes: vram.total,
  };
  fit.summary = fitSummary(fit, insights.totalLayers);
  return {
    architecture: String(general?.architecture ?? "unknown"),
    name: typeof general?.name === "string" ? general.name : null,
    parameters: insights.totalParameters,
    quantization,
    contextLength: insights.trainContextSize ?? null,
    totalLayers: insights.totalLayers,
    fit,
  };
}

export function fitVerdict(hasGpu: boolean, gpuLayers: number, totalLayers: number, ramBytes: number, machineRam: number, score: number): ModelFit["verdict"] {
  if (hasGpu && gpuLayers >= totalLayers && totalLayers > 0) return "gpu";
  if (hasGpu && gpuLayers > 0) return "partial";
  return ramBytes <= machineRam && score > 0 ? "cpu" : "no";
}

function gigabytes(bytes: number): string {
  if (bytes < 100 * 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

export function fitSummary(fit: ModelFit, totalLayers: number): string {
  const context = `${fit.contextSize.toLocaleString("en-US")}-token context`;
  switch (fit.verdict) {
    case "gpu":
      return `Fits in GPU memory (${fit.gpu}): all ${totalLayers} layers, about ${gigabytes(fit.vramBytes)} of ${gigabytes(fit.machineVramBytes)} VRAM with a ${context}.`;
    case "partial":
      return `Partly on the GPU (${fit.gpu}): ${fit.gpuLayers} of ${totalLayers} layers; the rest runs from RAM (about ${gigabytes(fit.ramBytes)}), slower.`;
    case "cpu":
      return `Runs on the CPU from RAM: about ${gigabytes(fit.ramBytes)} of ${gigabytes(fit.machineRamBytes)} with a ${context}${fit.gpu === null ? " (no GPU in use)" : ""}.`;
    case "no":
      return `Too big for this machine: needs about ${gigabytes(fit.ramBytes + fit.vramBytes)}; it has ${gigabytes(fit.machineRamBytes)} RAM${fit.machineVramBytes > 0 ? ` and ${gigabytes(fit.machineVramBytes)} VRAM` : ""}. Pick a smaller model or a smaller quantisation.`;
  }
}
