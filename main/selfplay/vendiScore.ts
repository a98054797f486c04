import { codeFingerprint, cosine, jaccard } from "./similarity.js";

/**
 * Diversity of a set of environments as the paper reports it: the Vendi score (Friedman & Dieng,
 * 2023), exp of the Shannon entropy of the eigenvalues of K/n for an n x n similarity kernel K
 * with K[i][i] = 1. It runs from 1 (all items identical) to n (all orthogonal); Vendi / n puts
 * batches of different sizes on one scale (the paper: 0.04 without corpus and memory, 0.68 with).
 *
 * Kernels, both positive semi-definite as the score needs:
 * - "embedding": cosine similarity of the backend's embeddings of the code, when it has them;
 * - "code-5gram-jaccard": Jaccard similarity of the code's token 5-gram sets with identifiers
 *   folded (the novelty check's fingerprint), so a renamed copy counts as the same game.
 */
export type DiversityKernel = "embedding" | "code-5gram-jaccard";

export interface Diversity {
  vendiScore: number;
  vendiPerN: number;
  n: number;
  kernel: DiversityKernel;
}

/** The Vendi score of a similarity matrix (symmetric, ones on the diagonal). 0 for an empty one. */
export function vendiScore(kernel: readonly (readonly number[])[]): number {
  const n = kernel.length;
  if (n === 0) return 0;
  const eigenvalues = symmetricEigenvalues(kernel.map((row) => row.map((value) => value / n)));
  let entropy = 0;
  for (const lambda of eigenvalues) if (lambda > 1e-12) entropy -= lambda * Math.log(lambda);
  return Math.exp(entropy);
}

/** The Jaccard kernel on code fingerprints. */
export function codeKernel(codes: readonly string[]): number[][] {
  const prints = codes.map(codeFingerprint);
  return prints.map((a, i) => prints.map((b, j) => (i === j ? 1 : jaccard(a, b))));
}

/** The cosine kernel on embeddings. */
export function embeddingKernel(vectors: readonly (readonly number[])[]): number[][] {
  return vectors.map((a, i) => vectors.map((b, j) => (i === j ? 1 : cosine(a, b))));
}

/**
 * The diversity of one regeneration's games: embeddings when `embed` is given (the backend's
 * `embed`), else code similarity. Null for no games.
 */
export async function regenerationDiversity(codes: readonly string[], embed?: (text: string) => Promise<number[]>): Promise<Diversity | null> {
  if (codes.length === 0) return null;
  if (embed) {
    const vectors = await Promise.all(codes.map((code) => embed(code)));
    const score = vendiScore(embeddingKernel(vectors));
    return { vendiScore: score, vendiPerN: score / codes.length, n: codes.length, kernel: "embedding" };
  }
  return codeDiversity(codes);
}

/** The code-similarity diversity, synchronously (what the iteration metrics store when nothing else was measured). */
export function codeDiversity(codes: readonly string[]): Diversity | null {
  if (codes.length === 0) return null;
  const score = vendiScore(codeKernel(codes));
  return { vendiScore: score, vendiPerN: score / codes.length, n: codes.length, kernel: "code-5gram-jaccard" };
}

/** Eigenvalues of a small symmetric matrix by cyclic Jacobi rotations. */
export function symmetricEigenvalues(matrix: readonly (readonly number[])[]): number[] {
  const n = matrix.length;
  const a = matrix.map((row) => [...row]);
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p]![q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k]![p]!;
          const akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p]![k]!;
          const aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
      }
    }
  }
  return a.map((row, i) => row[i]!);
}
