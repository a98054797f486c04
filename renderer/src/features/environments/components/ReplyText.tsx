import { splitReplyBlocks } from "../lib/splitReplyBlocks.js";

/** A model's text with its fenced code blocks shown as code. */
export function ReplyText({ text }: { text: string }) {
  const blocks = splitReplyBlocks(text);
  if (blocks.length === 0) return <p className="muted">(empty)</p>;
  return (
    <div className="reply-text">
      {blocks.map((block, i) =>
        block.kind === "text" ? (
          <p key={i} className="reply-paragraph">
            {block.text}
          </p>
        ) : (
          <figure key={i} className="reply-code">
            <figcaption className="muted small">
              {block.language || "code"}
              {!block.closed && " · cut off (no closing fence)"}
            </figcaption>
            <pre className="code-block">{block.code}</pre>
          </figure>
        ),
      )}
    </div>
  );
}
