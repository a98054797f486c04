/** SPADE's default grounding length: 6,000 words (4,000 for tool use). */
export const defaultMaxWords = 6000;

/**
 * The text cut after its first `maxWords` words (runs of non-space characters), keeping the
 * original spacing and line breaks up to there. Text with fewer words is returned unchanged.
 */
export function truncateWords(text: string, maxWords: number = defaultMaxWords): string {
  if (!Number.isInteger(maxWords) || maxWords < 1) throw new TypeError(`truncateWords: maxWords must be a positive integer, got ${maxWords}`);
  const word = /\S+/g;
  let count = 0;
  while (word.exec(text) !== null) {
    if (++count === maxWords) return text.slice(0, word.lastIndex);
  }
  return text;
}

/** The number of words (runs of non-space characters) in `text`. */
export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/**
 * A grounding document as the Designer sees it: cut after `maxWords` words and, when it was cut,
 * followed by the reference's marker line `[Document truncated at ~N words]`.
 */
export function truncateDocument(text: string, maxWords: number = defaultMaxWords): string {
  const cut = truncateWords(text, maxWords);
  return cut.length < text.trimEnd().length ? `${cut}\n[Document truncated at ~${maxWords} words]` : cut;
}
