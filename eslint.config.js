// Lint, with the layer rules of the design card: shared/ is common code, main/ is the Node engine
// (never Electron), renderer/ is the browser, electron/ is the thin shell.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const nodeBuiltins = ["node:*", "fs", "path", "child_process", "net", "http", "os", "crypto", "worker_threads"];
const layer = (files, forbidden, extra = []) => ({
  files,
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          ...forbidden.map((group) => ({ group: [group], message: `this layer must not import ${group}` })),
          ...extra,
        ],
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ["out/**", "dist/**", "node_modules/**", ".cache/**", "test-results/**", "resources/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  { files: ["renderer/**"], languageOptions: { globals: { ...globals.browser } } },
  layer(["shared/**"], ["**/main/**", "**/renderer/**", "**/electron/**", "electron", ...nodeBuiltins]),
  layer(["main/**"], ["electron", "electron/*", "**/renderer/**", "**/electron/**", "@electron-toolkit/*"]),
  layer(["renderer/**"], ["**/main/**", "**/electron/**", "electron", ...nodeBuiltins]),
);
