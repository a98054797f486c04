import { useState } from "react";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";

const OTHER = "\u0000other";

/** A GGUF file from the models folder, or any path or model URI typed in. */
export function ModelPicker({ value, onChange }: { value: string; onChange: (path: string) => void }) {
  const api = useApi();
  const models = useQuery("models", () => api.listModels({}));
  const files = models.data?.files ?? [];
  const listed = files.some((file) => file.path === value);
  const [typing, setTyping] = useState(false);
  const other = typing || (value !== "" && !listed);
  return (
    <span className="model-picker">
      <select
        value={other ? OTHER : value}
        onChange={(e) => {
          const choice = e.target.value;
          setTyping(choice === OTHER);
          onChange(choice === OTHER ? "" : choice);
        }}
        aria-label="model file"
      >
        <option value="">{files.length === 0 ? "(no GGUF files in the models folder)" : "(choose a model)"}</option>
        {files.map((file) => (
          <option key={file.path} value={file.path}>
            {file.name}
          </option>
        ))}
        <option value={OTHER}>another path or a model URI…</option>
      </select>
      {other && <input value={value} onChange={(e) => onChange(e.target.value)} placeholder="/path/to/model.gguf or hf:owner/repo/file.gguf" aria-label="model path" />}
    </span>
  );
}
