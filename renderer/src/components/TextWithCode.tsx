import { splitInlineCode } from "../lib/format/splitInlineCode.js";

/** Engine text with its backtick spans shown as code. */
export function TextWithCode({ text }: { text: string }) {
  return (
    <>
      {splitInlineCode(text).map((part, i) => (part.kind === "code" ? <code key={i}>{part.text}</code> : <span key={i}>{part.text}</span>))}
    </>
  );
}
