import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { DescendantCpu } from "../../main/bench/descendantCpu.js";

/** A child that burns `ms` of its own CPU (measured by itself, so load cannot change it), says "done", then waits for stdin to close. */
function burner(ms: number): ChildProcess {
  const script = `const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1000 < ${ms}) {} process.stdout.write("done"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`;
  return spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
}

async function burnt(child: ChildProcess): Promise<void> {
  const [chunk] = (await once(child.stdout!, "data")) as [Buffer];
  expect(chunk.toString()).toBe("done");
}

describe.runIf(process.platform === "linux")("DescendantCpu", () => {
  it("counts what child processes used inside the window only: a child started inside from 0, one running before from its ticks at the opening", async () => {
    const before = burner(600);
    await burnt(before);
    const window = DescendantCpu.start(20);
    const inside = burner(300);
    await burnt(inside);
    const ended = once(inside, "exit");
    inside.stdin!.end();
    await ended;
    const figures = window.stop();
    before.stdin!.end();
    await once(before, "exit");
    expect(figures).not.toBeNull();
    // The child inside burnt 300 ms (Node's own start adds more); the one before burnt 600 ms before the window and idled inside it.
    expect(figures!.childrenMs).toBeGreaterThanOrEqual(280);
    expect(figures!.childrenMs).toBeLessThan(600 + 280);
    expect(figures!.samplingMs).toBeGreaterThanOrEqual(0);
  });
});
