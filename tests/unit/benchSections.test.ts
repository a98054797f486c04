// `spade bench` never loses the numbers of the sections that ran: a section that cannot run is
// reported as skipped with its reason, a failing one too (and named as failed), and the rest run.
import { describe, expect, it } from "vitest";
import type { BenchSection } from "../../main/bench/BenchSection.js";
import { BenchSkipped } from "../../main/bench/BenchSkipped.js";
import { prepareUiBench } from "../../main/bench/prepareUiBench.js";
import { runBenchSections } from "../../main/bench/runBenchSections.js";

describe("runBenchSections", () => {
  it("keeps every measured section and reports the others as skipped with the reason", async () => {
    const ran: string[] = [];
    const sections: BenchSection[] = [
      { name: "first", run: async () => (ran.push("first"), { perSec: 10 }) },
      { name: "needs-model", run: async () => { throw new BenchSkipped("no model (set SPADE_BENCH_MODEL to a GGUF file)"); } },
      { name: "prepared", prepare: async () => { throw new BenchSkipped("no Chromium at /nope"); }, run: async () => (ran.push("prepared"), { ms: 1 }) },
      { name: "broken", run: async () => { throw new Error("sqlite exploded"); } },
      { name: "last", prepare: async (log) => log("getting ready"), run: async () => (ran.push("last"), { ms: 5 }) },
    ];
    const lines: string[] = [];
    const { result, failed } = await runBenchSections(sections, (section, line) => lines.push(`${section}: ${line}`));
    expect(ran).toEqual(["first", "last"]);
    expect(result).toEqual({
      first: { perSec: 10 },
      "needs-model": { skipped: true, reason: "no model (set SPADE_BENCH_MODEL to a GGUF file)" },
      prepared: { skipped: true, reason: "no Chromium at /nope" },
      broken: { skipped: true, reason: "sqlite exploded" },
      last: { ms: 5 },
    });
    expect(Object.keys(result)).toEqual(["first", "needs-model", "prepared", "broken", "last"]);
    expect(failed).toEqual(["broken"]);
    expect(lines).toContain("last: getting ready");
    expect(lines).toContain("prepared: skipped: no Chromium at /nope");
  });
});

describe("prepareUiBench", () => {
  it("skips the ui section, with the reason, where there is no Chromium", async () => {
    const saved = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = "/no/such/chromium";
    try {
      await expect(prepareUiBench(() => {})).rejects.toThrow(new BenchSkipped("no Chromium at /no/such/chromium (install Debian's chromium, or set CHROMIUM_PATH)"));
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
  });
});
