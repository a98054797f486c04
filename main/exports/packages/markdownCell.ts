/** Environment text as one Markdown table cell: whitespace runs (newlines included) as one space, `|` and backticks escaped. */
export function markdownCell(text: string): string {
  return text.replace(/\s+/g, " ").replace(/([|`\\])/g, "\\$1").trim();
}

/** Environment text as inline code in a table cell (the cell's rules, in backticks). */
export function markdownCodeCell(text: string): string {
  const cell = markdownCell(text);
  return cell ? `\`${cell}\`` : "";
}
