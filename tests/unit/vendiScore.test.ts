// The Vendi score on kernels whose eigenvalues are known by hand, and the code-similarity kernel.
import { describe, expect, it } from "vitest";
import { codeDiversity, regenerationDiversity, symmetricEigenvalues, vendiScore } from "../../main/selfplay/vendiScore.js";

const identity = (n: number) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
const ones = (n: number) => Array.from({ length: n }, () => Array<number>(n).fill(1));

describe("the Vendi score", () => {
  it("is n for n dissimilar items, 1 for identical ones, the number of clusters for block kernels", () => {
    expect(vendiScore(identity(5))).toBeCloseTo(5, 9);
    expect(vendiScore(ones(6))).toBeCloseTo(1, 9);
    const blocks = [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]];
    expect(vendiScore(blocks)).toBeCloseTo(2, 9);
    expect(vendiScore([])).toBe(0);
  });

  it("matches the entropy of the eigenvalues worked out by hand", () => {
    // [[1, s], [s, 1]] / 2 has eigenvalues (1 + s) / 2 and (1 - s) / 2.
    const s = 0.6;
    const [a, b] = [(1 + s) / 2, (1 - s) / 2];
    expect(vendiScore([[1, s], [s, 1]])).toBeCloseTo(Math.exp(-(a * Math.log(a) + b * Math.log(b))), 9);
    const eigen = symmetricEigenvalues([[2, 1, 0], [1, 2, 0], [0, 0, 5]]).sort((x, y) => x - y);
    expect(eigen[0]).toBeCloseTo(1, 9);
    expect(eigen[1]).toBeCloseTo(3, 9);
    expect(eigen[2]).toBeCloseTo(5, 9);
  });

  it("on code: a renamed copy is the same game, a different game adds diversity", async () => {
    const game = "class AEnv:\n    def step(self, action):\n        total = self.a + self.b * 2\n        return str(total), 0.0, False, False, {}\n";
    const renamed = game.replaceAll("AEnv", "BEnv").replaceAll("total", "sum_").replaceAll("self.a", "self.x");
    const other = "import re\nclass CEnv:\n    def reset(self, seed=None):\n        for i in range(3):\n            print(i)\n        return 'x', {}\n";
    expect(codeDiversity([game, renamed])!.vendiScore).toBeCloseTo(1, 6);
    const mixed = codeDiversity([game, renamed, other])!;
    expect(mixed.vendiScore).toBeGreaterThan(1.5);
    expect(mixed.vendiPerN).toBeCloseTo(mixed.vendiScore / 3, 12);
    expect(mixed.kernel).toBe("code-5gram-jaccard");
    const embedded = await regenerationDiversity(["a", "b"], async (text) => (text === "a" ? [1, 0] : [0, 1]));
    expect(embedded).toEqual({ vendiScore: expect.closeTo(2, 9), vendiPerN: expect.closeTo(1, 9), n: 2, kernel: "embedding" });
    expect(codeDiversity([])).toBeNull();
  });
});
