import type { Token, Tokenizer } from "node-llama-cpp";

/**
 * node-llama-cpp's tokenizer with a memo of its recent answers. A chat template renders the whole
 * conversation every turn, and LlamaText tokenises it piece by piece between special tokens, so
 * the pieces of earlier turns (the system prompt, previous observations and replies) are the same
 * calls with the same arguments as last turn: answering them from the memo leaves only the new
 * turn's text to tokenise. The tokens are exactly what the tokenizer returns (same calls, same
 * arguments). At most `maxEntries` answers are kept, least recently used first out. Defaults to 4096.
 */
export function createCachingTokenizer(tokenizer: Tokenizer, maxEntries = 4096): Tokenizer {
  const memo = new Map<string, readonly Token[]>();
  const tokenize = ((text: string, specialTokens?: boolean | "builtin", options?: "trimLeadingSpace"): Token[] => {
    const key = `${specialTokens === "builtin" ? "b" : specialTokens ? "s" : "t"}${options === "trimLeadingSpace" ? "1" : "0"}${text}`;
    const known = memo.get(key);
    if (known) {
      memo.delete(key);
      memo.set(key, known);
      return known.slice();
    }
    const tokens = (tokenizer as (text: string, specialTokens?: boolean | "builtin", options?: "trimLeadingSpace") => Token[])(text, specialTokens, options);
    memo.set(key, tokens.slice());
    if (memo.size > maxEntries) memo.delete(memo.keys().next().value!);
    return tokens;
  }) as Tokenizer;
  return Object.assign(tokenize, {
    detokenize: tokenizer.detokenize,
    isSpecialToken: (token: Token) => tokenizer.isSpecialToken(token),
    isEogToken: (token: Token) => tokenizer.isEogToken(token),
  });
}
