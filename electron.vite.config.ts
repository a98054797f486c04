// Builds the Electron shell (main + sandboxed preload) and the renderer. The engine is not
// bundled: electron/main.ts loads the tsc-built engine from out/engine at run time, so the
// engine's own files (sandbox workers, resources) keep their paths.
import react from "@vitejs/plugin-react";
import { defineConfig } from "electron-vite";
import { resolve } from "node:path";

const root = import.meta.dirname;
const nativeOrHeavy = ["node-llama-cpp", "better-sqlite3", "pyodide", "ws"];

export default defineConfig({
  main: {
    build: {
      externalizeDeps: { include: nativeOrHeavy },
      rolldownOptions: { input: { index: resolve(root, "electron/main.ts") } },
    },
  },
  preload: {
    build: {
      // A sandboxed preload must be one self-contained CommonJS file.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, "electron/preload.ts") },
        output: { format: "cjs", entryFileNames: "[name].cjs" },
      },
    },
  },
  renderer: {
    root: resolve(root, "renderer"),
    base: "./",
    plugins: [react()],
    build: {
      outDir: resolve(root, "out/renderer"),
      minify: true,
      chunkSizeWarningLimit: 8000,
      rolldownOptions: { input: { index: resolve(root, "renderer/index.html") } },
    },
  },
});
