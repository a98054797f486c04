// Monaco bundled offline: no CDN. The editor worker comes from the bundle; other languages'
// workers are not needed (Python has tokenisation only).
import { loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor";
import EditorWorker from "monaco-editor/editor/editor.worker?worker";

let done = false;

export function setupMonaco(): typeof monaco {
  if (!done) {
    self.MonacoEnvironment = { getWorker: () => new EditorWorker() };
    loader.config({ monaco });
    done = true;
  }
  return monaco;
}
