import { existsSync } from "node:fs";
import { buildRunReport } from "../../selfplay/buildRunReport.js";
import { openDatabase } from "../../store/openDatabase.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const reportCommand: Command = {
  name: "report",
  usage: "report --db <path> [--run <id>] [--json]",
  summary: "every designer attempt of a run with its statistics and episodes",
  async run(argv) {
    const { values } = parseCommandArgs("report", argv, { db: { type: "string", valueName: "path", help: "Workspace database (SQLite file). (required)" }, run: { type: "string", valueName: "id", help: "The run to report.", defaultText: "every run" }, json: { type: "boolean", help: "Print JSON instead of text." } }, false);
    if (!values.db) throw new UsageError("spade report: --db <path> is required");
    if (!existsSync(values.db)) throw new UsageError(`spade report: ${values.db} does not exist`);
    const runId = parseIntegerOption("report", "run", values.run);
    const db = openDatabase(values.db, { readonly: true });
    let report;
    try {
      report = buildRunReport(db, runId);
    } catch (error) {
      throw new UsageError(`spade report: ${(error as Error).message}`);
    } finally {
      db.close();
    }
    if (values.json) {
      process.stdout.write(JSON.stringify(report) + "\n");
      return 0;
    }
    for (const run of report.runs) {
      process.stdout.write(`run ${run.id} ${run.name ? `"${run.name}" ` : ""}${run.status}, ${run.iterationsCompleted} iterations${run.ablations.length ? ` (${run.ablations.join(", ")})` : ""}\n`);
      if (run.error) process.stdout.write(`  error: ${run.error}\n`);
      if (run.corpusSkipped) process.stdout.write(`  ${run.corpusSkipped}\n`);
      if (run.status === "interrupted") process.stdout.write(`  the process that ran it is gone; continue it with spade run --config <its config> --resume\n`);
      for (const env of run.environments) {
        const stats = env.valid
          ? `win ${fmt(env.winRate)} hinted ${env.hintSkipped ? `skipped (${env.hintSkipped})` : fmt(env.hintWinRate)} regret ${fmt(env.regret)} reward ${fmt(env.designerReward)}${env.novel === false ? " duplicate" : ""}`
          : `invalid: ${env.validationError ?? "?"}`;
        // Named as the progress line and the workbench name them: iteration and slot as stored, attempts from 1.
        process.stdout.write(`  #${env.id} iteration ${env.iteration} slot ${env.slot} attempt ${env.attempt + 1} ${env.className ?? "-"}: ${stats}\n`);
        for (const warning of env.validationWarnings ?? []) process.stdout.write(`      warning| ${warning}\n`);
        const rollouts = [...new Set(env.episodes.map((episode) => episode.rollout ?? env.iteration))].sort((a, b) => a - b);
        // A game replayed in later rollouts: its plays by rollout, so the counts above read as several rollouts' plays.
        if (rollouts.length > 1) process.stdout.write(`      plays by rollout: ${rollouts.map((rollout) => `${rollout}${rollout > env.iteration ? " (replay)" : ""}: ${env.episodes.filter((episode) => (episode.rollout ?? env.iteration) === rollout).length}`).join(", ")}
`);
        const cut = env.episodes.filter((episode) => episode.stop);
        for (const stop of new Set(cut.map((episode) => episode.stop))) {
          process.stdout.write(`      cut off: ${cut.filter((episode) => episode.stop === stop).length} of ${env.episodes.length} plays truncated (stop: ${stop})\n`);
        }
        if (env.replyHead) process.stdout.write(env.replyHead.split("\n").map((line) => `      reply| ${line}\n`).join(""));
      }
      if (run.diagnosis) process.stdout.write(`  diagnosis: ${run.diagnosis.message}\n`);
    }
    return 0;
  },
};

function fmt(value: number | null): string {
  return value === null ? "-" : value.toFixed(2);
}
