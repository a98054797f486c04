import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";

/** What a run's config switches off or changes relative to the SPADE recipe, in words for reports and the UI. */
export function describeAblations(config: Pick<RunConfig, "designer" | "corpus" | "memory" | "reward">): string[] {
  const ablations: string[] = [];
  if (config.designer.kind === "fixed") ablations.push(`fixed environment pool "${config.designer.set}"`);
  if (config.corpus === null) ablations.push("no corpus");
  if (!config.memory.enabled) ablations.push("no memory");
  if (config.reward.kind !== "blend") ablations.push(`reward: ${config.reward.kind}`);
  return ablations;
}

/** The ablations of a stored run config; a config this version cannot read names none. */
export function storedRunAblations(config: unknown): string[] {
  try {
    return describeAblations(parseRunConfig(config, "stored run config"));
  } catch {
    return [];
  }
}
