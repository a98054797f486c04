// The regeneration bench's scripted OpenAI-compatible server (issue 25): a real HTTP server on
// loopback that answers after a fixed latency, counts service time and requests in flight, and
// gives every designer call a different game when asked to.
import { afterEach, describe, expect, it } from "vitest";
import { startLatencyServer, type LatencyServer } from "../../main/bench/latencyServer.js";
import { designerPromptMarker } from "../../main/selfplay/designerPrompt.js";

let server: LatencyServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function chat(baseUrl: string, content: string): Promise<string> {
  const response = await fetch(`${baseUrl}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "latency", messages: [{ role: "user", content }] }) });
  const body = (await response.json()) as { choices: { message: { content: string } }[] };
  return body.choices[0]!.message.content;
}

describe("the latency server", () => {
  it("answers after the latency, counts what is in flight, and writes a different game for every designer call", async () => {
    server = await startLatencyServer({ latencyMs: 150, distinctGames: true });
    const started = performance.now();
    const answers = await Promise.all([chat(server.baseUrl, `design ${designerPromptMarker}`), chat(server.baseUrl, `design ${designerPromptMarker}`), chat(server.baseUrl, "Guess the number.")]);
    const wall = performance.now() - started;
    expect(wall).toBeGreaterThanOrEqual(145);
    expect(answers[0]).toContain("class GuessEnv");
    expect(answers[1]).toContain("class GuessEnv");
    expect(answers[0]).not.toBe(answers[1]);
    expect(answers[2]).toBe("\\boxed{7}");
    const stats = await server.stats();
    expect(stats.requests).toBe(3);
    expect(stats.peak).toBe(3);
    expect(stats.serviceMs).toBeGreaterThanOrEqual(3 * 145);
    server.reset();
    expect((await server.stats()).requests).toBe(0);
  });

  it("gives every designer call the same game unless asked for distinct ones", async () => {
    server = await startLatencyServer({ latencyMs: 1 });
    const first = await chat(server.baseUrl, `design ${designerPromptMarker}`);
    expect(await chat(server.baseUrl, `design ${designerPromptMarker}`)).toBe(first);
  });
});
