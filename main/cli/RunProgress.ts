import type { RunControllerEvent } from "../selfplay/RunController.js";

/**
 * `spade run`'s stderr: a progress bar for the current iteration (redrawn in place on a terminal,
 * a line per step otherwise) that follows the rollout's completed designs and plays (it never runs
 * back within a rollout), with their counts and the time left, and a summary line per iteration. Iterations are numbered as stored
 * (from 0), as the report and the workbench number them: "iteration 1 of 3" is the store's 1.
 */
export class RunProgress {
  private iterations = 0;
  private lastDrawn = "";

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  handle(event: RunControllerEvent): void {
    switch (event.type) {
      case "iterationStarted":
        this.iterations = event.iterations;
        break;
      case "progress": {
        // A training round draws its own bar (trainingProgress).
        const p = event.progress;
        if (p.phase === "training") break;
        const units = p.units.map((unit) => `${unit.name} ${unit.done}/${unit.total}`);
        const left = p.etaMs === null ? [] : [`about ${formatDuration(p.etaMs)} left`];
        this.draw(`iteration ${p.iteration} of ${p.iterations} ${bar(p.rolloutFraction ?? 0, 1)} ${p.phase}: ${[...units, ...left].join(", ")}`);
        break;
      }
      case "iterationCompleted": {
        const m = event.metrics;
        const pct = (value: number | undefined) => (value === undefined ? "-" : `${Math.round(value * 100)}%`);
        const num = (value: number | undefined) => (value === undefined ? "-" : value.toFixed(3));
        this.line(
          // A replay rollout designs nothing: it has no validity, only its plays of the batch's games.
          `iteration ${event.iteration} of ${this.iterations} done: ${m.regeneration === 0 ? "replay" : `validity ${pct(m.validityRate)}`}, win rate ${pct(m.meanWinRate)}, regret ${num(m.meanRegret)}, designer reward ${num(m.designerReward)}, novelty ${pct(m.noveltyRate)}, ${m.episodes ?? 0} episodes, ${Math.round(m.tokens ?? 0)} tokens, ${((m.wallTimeMs ?? 0) / 1000).toFixed(1)} s`,
        );
        break;
      }
      case "note":
        this.line(`iteration ${event.iteration}: ${event.text}`);
        break;
      case "trainingStarted":
        this.draw(`training round ${event.round + 1} after iteration ${event.afterIteration}: ${event.sequences} sequences`);
        break;
      case "trainingProgress":
        this.draw(`training round ${event.round + 1} ${bar(event.step, event.steps)} ${event.phase}${event.steps > 0 ? ` step ${event.step}/${event.steps}` : ""}${event.loss === null ? "" : `, loss ${event.loss.toFixed(4)}`}`);
        break;
      case "trainingFinished":
        this.line(`training round ${event.round + 1} ${event.status}${event.adapter ? `: ${event.adapter}` : ""}${event.loss === null ? "" : `, loss ${event.loss.toFixed(4)}`}${event.reason ? ` (${event.reason})` : ""}`);
        break;
      case "notice":
        this.line(`note: ${event.message}`);
        break;
      case "diagnosis":
        this.line(`diagnosis: ${event.diagnosis.message}`);
        break;
      case "runStatus":
        if (event.status !== "running") this.line(`run ${event.runId} ${event.status}${event.error ? `: ${event.error}` : ""}`);
        break;
      default:
        break;
    }
  }

  private draw(text: string): void {
    if (text === this.lastDrawn) return;
    this.lastDrawn = text;
    if (this.stream.isTTY) this.stream.write(`\r\x1b[2K${text}`);
    else this.stream.write(`${text}\n`);
  }

  private line(text: string): void {
    if (this.stream.isTTY && this.lastDrawn) this.stream.write("\r\x1b[2K");
    this.lastDrawn = "";
    this.stream.write(`${text}\n`);
  }
}

/** "45 s", "2 min 10 s", "1 h 05 min". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

function bar(done: number, total: number, width = 20): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}
