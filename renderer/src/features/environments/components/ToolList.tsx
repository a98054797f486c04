import type { PlayInputHelp } from "../lib/preparePlayInput.js";

/** A tool-use environment's tools; "Use" puts a call of the tool into the action input. */
export function ToolList({ help, onPick }: { help: PlayInputHelp; onPick: (action: string) => void }) {
  if (help.kind !== "tool") return null;
  return (
    <div className="play-tools" data-testid="play-tools">
      <h4>Tools</h4>
      {help.tools.length === 0 && <p className="muted small">This environment declares no tools.</p>}
      <ul>
        {help.tools.map((tool) => (
          <li key={tool.name} data-testid="play-tool">
            <button type="button" className="small" onClick={() => onPick(tool.template)} aria-label={`use ${tool.name}`}>
              Use
            </button>{" "}
            <code>{tool.name}</code>
            {tool.description && <span className="muted"> · {tool.description}</span>}
            {tool.parameters.length > 0 && (
              <ul className="tool-params">
                {tool.parameters.map((parameter) => (
                  <li key={parameter.name}>
                    <code>{parameter.name}</code> <span className="muted small">{parameter.type}{parameter.required ? ", required" : ", optional"}</span>
                    {parameter.description && <span className="muted small"> · {parameter.description}</span>}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      {help.answerTemplate && (
        <p className="muted small">
          <button type="button" className="small" onClick={() => onPick(help.answerTemplate!)}>
            Answer
          </button>{" "}
          submits a final answer: <code>{help.answerTemplate}</code>
        </p>
      )}
    </div>
  );
}
