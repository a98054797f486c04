import type { PackagedEnvironment } from "../../../shared/envExport.js";
import { markdownCell, markdownCodeCell } from "./markdownCell.js";

function percent(value: number | null): string {
  return value === null ? "not measured" : `${(value * 100).toFixed(1)}%`;
}

/** The README's "Origin" section: where the environment came from and how the workbench's agent did on it. */
export function originSection(environment: PackagedEnvironment): string {
  const rows: Array<[string, string]> = [
    ["class", markdownCodeCell(environment.className)],
    ["source", markdownCodeCell(environment.source)],
    ["run", environment.runId === null ? "none (imported or edited)" : String(environment.runId)],
    ["rollout", environment.iteration === null ? "none" : String(environment.iteration)],
    ["skill", environment.skill === null ? "none" : markdownCell(environment.skill)],
    ["win rate without hint", percent(environment.winRate)],
    ["win rate with hint", percent(environment.hintWinRate)],
    ["regret", environment.regret === null ? "not measured" : environment.regret.toFixed(3)],
    ["turn limit", String(environment.maxTurns)],
    ["hint", environment.hint === null ? "the environment's own `hint()` if it has one" : markdownCell(environment.hint)],
  ];
  return ["## Origin", "", "| | |", "|---|---|", ...rows.map(([key, value]) => `| ${key} | ${value} |`)].join("\n");
}
