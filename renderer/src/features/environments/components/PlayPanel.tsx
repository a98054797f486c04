import { useEffect, useRef, useState, type FormEvent } from "react";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { formatNumber } from "../../../lib/format/formatNumber.js";
import { preparePlayInput, type PlayInputHelp } from "../lib/preparePlayInput.js";
import { ToolList } from "./ToolList.js";

interface Line {
  kind: "observation" | "action";
  text: string;
  reward?: number;
  end?: string;
}

/** Plays the environment by hand: type an action, see the observation and reward. */
export function PlayPanel({ envId, hint }: { envId: number; hint: string | null }) {
  const api = useApi();
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [action, setAction] = useState("");
  const [seed, setSeed] = useState("0");
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const [withHint, setWithHint] = useState(false);
  const [help, setHelp] = useState<PlayInputHelp | null>(null);
  const sessionRef = useRef<string | null>(null);
  sessionRef.current = sessionId;
  const logRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);

  // The newest turn stays in view as the log grows.
  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [lines]);

  useEffect(
    () => () => {
      if (sessionRef.current) api.endPlay({ sessionId: sessionRef.current }).catch(() => undefined);
    },
    [api],
  );

  async function run<T>(work: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setError(null);
    try {
      return await work();
    } catch (err) {
      setError(err as Error);
      return undefined;
    } finally {
      setBusy(false);
    }
  }

  async function start() {
    if (sessionId) await api.endPlay({ sessionId }).catch(() => undefined);
    const started = await run(() => api.startPlay({ envId, seed: Number(seed) || 0 }));
    if (!started) return;
    setSessionId(started.sessionId);
    setHelp(preparePlayInput(started));
    const first = withHint && hint ? `${started.observation}\n\nHINT: ${hint}` : started.observation;
    setLines([{ kind: "observation", text: first }]);
  }

  async function step(event: FormEvent) {
    event.preventDefault();
    if (!sessionId) return;
    const sent = action;
    const result = await run(() => api.playStep({ sessionId, action: sent }));
    if (!result) return;
    setAction("");
    const end = result.terminated ? `terminated · return ${formatNumber(result.episodeReturn)}` : result.truncated ? `truncated · return ${formatNumber(result.episodeReturn)}` : undefined;
    setLines((previous) => [...previous, { kind: "action", text: sent }, { kind: "observation", text: result.observation, reward: result.reward, end }]);
    if (end) {
      await api.endPlay({ sessionId }).catch(() => undefined);
      setSessionId(null);
    }
  }

  return (
    <div className="play" data-testid="play-panel">
      <div className="play-controls">
        <label>
          Seed <input className="narrow" value={seed} onChange={(e) => setSeed(e.target.value)} />
        </label>
        {hint && (
          <label className="check">
            <input type="checkbox" checked={withHint} onChange={(e) => setWithHint(e.target.checked)} /> show hint
          </label>
        )}
        <button type="button" onClick={start} disabled={busy}>
          {sessionId ? "Restart" : "Start playing"}
        </button>
      </div>
      {sessionId && help && (
        <ToolList
          help={help}
          onPick={(template) => {
            setAction(template);
            inputRef.current?.focus();
          }}
        />
      )}
      <div className="play-log" data-testid="play-log" ref={logRef}>
        {lines.map((line, i) => (
          <div key={i} className={`play-${line.kind}`}>
            {line.kind === "action" ? "> " : ""}
            <pre>{line.text}</pre>
            {line.reward !== undefined && <span className="reward">reward {formatNumber(line.reward, 3)}</span>}
            {line.end && <span className="end">{line.end}</span>}
          </div>
        ))}
      </div>
      {sessionId && (
        <form onSubmit={step} className="play-input">
          <input value={action} onChange={(e) => setAction(e.target.value)} ref={inputRef} placeholder={help?.placeholder ?? ""} aria-label="action" autoFocus />
          <button type="submit" disabled={busy}>
            Send
          </button>
        </form>
      )}
      {error && <ErrorBox error={error} />}
    </div>
  );
}
