import type { ChatMessage } from "../../../../../shared/llm.js";
import { ReplyText } from "./ReplyText.js";
import { TextWithCode } from "../../../components/TextWithCode.js";

/**
 * What the designer was asked and what it answered, beside the code extracted from it: the first
 * place to look when an attempt is invalid (the reply is open then).
 */
export function DesignerExchange({ prompt, rawReply, valid, error }: { prompt: ChatMessage[] | null; rawReply: string | null; valid: boolean; error: string | null }) {
  if (prompt === null && rawReply === null) return null;
  const promptChars = (prompt ?? []).reduce((sum, message) => sum + message.content.length, 0);
  return (
    <div className="designer-exchange" data-testid="designer-exchange">
      {rawReply !== null && (
        <details open={!valid} data-testid="designer-reply">
          <summary>Designer reply ({rawReply.length.toLocaleString()} characters)</summary>
          {rawReply.trim() === "" ? <p className="muted">
              No reply{error ? ": " : ""}
              {error && <TextWithCode text={error} />}.
            </p> : <ReplyText text={rawReply} />}
        </details>
      )}
      {prompt !== null && (
        <details data-testid="designer-prompt">
          <summary>
            Designer prompt ({prompt.length} messages, {promptChars.toLocaleString()} characters)
          </summary>
          {prompt.map((message, i) => (
            <section key={i} className="prompt-message">
              <h4 className="muted small">{message.role}</h4>
              <ReplyText text={message.content} />
            </section>
          ))}
        </details>
      )}
    </div>
  );
}
