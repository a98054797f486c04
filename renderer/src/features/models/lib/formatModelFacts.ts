import type { ModelFit } from "../../../../../shared/api/modelTypes.js";

/** 292800 -> "293K", 7.6e9 -> "7.6B". */
export function formatParameters(count: number): string {
  if (count >= 1e9) return `${(count / 1e9).toFixed(1)}B`;
  if (count >= 1e6) return `${(count / 1e6).toFixed(1)}M`;
  if (count >= 1e3) return `${Math.round(count / 1e3)}K`;
  return String(count);
}

/** A file size: MB below a gigabyte, GB above. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

/** The fit verdict's words and badge class (existing badge colours). */
export function fitLabel(verdict: ModelFit["verdict"]): { text: string; className: string } {
  switch (verdict) {
    case "gpu":
      return { text: "fits the GPU", className: "badge badge-completed" };
    case "partial":
      return { text: "partly on the GPU", className: "badge badge-paused" };
    case "cpu":
      return { text: "runs from RAM", className: "badge badge-running" };
    case "no":
      return { text: "too big", className: "badge badge-failed" };
  }
}
