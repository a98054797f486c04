import type { RunControllerEvent } from "../selfplay/RunController.js";

/**
 * `spade run`'s stderr: a progress bar for the current iteration (redrawn in place on a terminal,
 * a line per step otherwise) and a summary line per iteration. Iterations are numbered as stored
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
      case "slotPhase":
        this.draw(`iteration ${event.iteration} of ${this.iterations} ${bar(event.slot, event.slots)} slot ${event.slot} of ${event.slots} ${event.phase}${event.detail ? ` (${event.detail})` : ""}`);
        break;
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

function bar(done: number, total: number, width = 20): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}
