import { readFileSync } from "node:fs";
import { resourcePath } from "../paths.js";

const cache = new Map<string, string>();

/** Reads `resources/prompts/<name>` once per process. */
export function loadPrompt(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(resourcePath("prompts", name), "utf8").trimEnd();
    cache.set(name, text);
  }
  return text;
}

/** Replaces `{{key}}` placeholders; a placeholder without a value is an error, not a silent blank. */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`prompt template needs a value for {{${key}}}`);
    return value;
  });
}
