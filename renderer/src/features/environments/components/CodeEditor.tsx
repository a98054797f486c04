import Editor, { type OnMount } from "@monaco-editor/react";
import { useEffect, useRef, useState } from "react";
import type { EditorMarker } from "../lib/validationMarkers.js";
import { setupMonaco } from "../lib/setupMonaco.js";

const monaco = setupMonaco();
type StandaloneEditor = Parameters<OnMount>[0];

/**
 * Monaco with Python highlighting; `markers` are shown as error squiggles. The editor owns its
 * text (uncontrolled): a controlled value can lag a fast typist by a render and overwrite the
 * keys typed meanwhile. To replace the text, remount it with a new `key`.
 */
export function CodeEditor({ initialValue, onChange, markers }: { initialValue: string; onChange: (code: string) => void; markers: EditorMarker[] }) {
  const editorRef = useRef<StandaloneEditor | null>(null);
  const [mounted, setMounted] = useState(false);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    monaco.editor.setModelMarkers(
      model,
      "spade-validation",
      markers.map((marker) => ({
        startLineNumber: marker.line,
        endLineNumber: marker.line,
        startColumn: 1,
        endColumn: model.getLineMaxColumn(marker.line),
        message: marker.message,
        severity: marker.severity === "warning" ? monaco.MarkerSeverity.Warning : monaco.MarkerSeverity.Error,
      })),
    );
  }, [markers, mounted]);

  return (
    <div className="code-editor" data-testid="code-editor">
      <Editor
        height="100%"
        language="python"
        theme="vs-dark"
        defaultValue={initialValue}
        onChange={(code) => onChange(code ?? "")}
        onMount={(editor) => {
          editorRef.current = editor;
          setMounted(true);
        }}
        options={{ minimap: { enabled: false }, fontSize: 13, scrollBeyondLastLine: false, automaticLayout: true, tabSize: 4 }}
      />
    </div>
  );
}
