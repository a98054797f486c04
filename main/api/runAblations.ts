import { parseRunConfig } from "../../shared/runConfig.js";
import { describeAblations } from "../selfplay/describeAblations.js";

/**
 * The ablations a stored run config names ("no memory", "reward: regret", ...). A config this
 * version cannot parse (an older or hand-written one) names none rather than failing the list.
 */
export function runAblations(config: unknown): string[] {
  try {
    return describeAblations(parseRunConfig(config, "stored run config"));
  } catch {
    return [];
  }
}
