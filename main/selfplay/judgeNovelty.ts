import { codeFingerprint, cosine, jaccard, textFingerprint } from "./similarity.js";

export interface NoveltySubject {
  code: string;
  /** The first observation of `reset(seed)` for a fixed probe seed. */
  observation: string;
  embedding?: number[] | null;
}

export interface NoveltyReference extends NoveltySubject {
  environmentId: number;
}

export interface NoveltyThresholds {
  /** Defaults to 0.85. */
  codeSimilarity: number;
  /** Defaults to 0.9 (counted only with code similarity >= 0.6). */
  observationSimilarity: number;
  /** Cosine similarity of embeddings, when both have one. Defaults to 0.95. */
  embeddingSimilarity?: number;
}

export interface NoveltyVerdict {
  novel: boolean;
  duplicateOf: number | null;
  codeSimilarity: number;
  observationSimilarity: number;
  embeddingSimilarity: number | null;
}

/**
 * Compares a new environment with what memory holds; the closest reference decides. A
 * near-duplicate shares most of its code shape, or plays the same (same first observation)
 * with much the same code, or (with embeddings) means the same thing.
 */
export function judgeNovelty(subject: NoveltySubject, references: readonly NoveltyReference[], thresholds: NoveltyThresholds): NoveltyVerdict {
  const code = codeFingerprint(subject.code);
  const observation = textFingerprint(subject.observation);
  let best: NoveltyVerdict = { novel: true, duplicateOf: null, codeSimilarity: 0, observationSimilarity: 0, embeddingSimilarity: null };
  let bestScore = -1;
  for (const reference of references) {
    const codeSimilarity = jaccard(code, codeFingerprint(reference.code));
    const observationSimilarity = jaccard(observation, textFingerprint(reference.observation));
    const embeddingSimilarity = subject.embedding && reference.embedding ? cosine(subject.embedding, reference.embedding) : null;
    const duplicate =
      codeSimilarity >= thresholds.codeSimilarity ||
      (observationSimilarity >= thresholds.observationSimilarity && codeSimilarity >= 0.6) ||
      (embeddingSimilarity !== null && embeddingSimilarity >= (thresholds.embeddingSimilarity ?? 0.95));
    const score = Math.max(codeSimilarity, embeddingSimilarity ?? 0) + (duplicate ? 1 : 0);
    if (score > bestScore) {
      bestScore = score;
      best = { novel: !duplicate, duplicateOf: duplicate ? reference.environmentId : null, codeSimilarity, observationSimilarity, embeddingSimilarity };
    }
  }
  return best;
}
