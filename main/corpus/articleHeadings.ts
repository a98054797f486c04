/** Which top-level heading style splits a text file into articles. */
export type HeadingStyle = "wikitext" | "markdown";

/** The heading style of a file by its extension: `.md`/`.markdown` -> Markdown, else WikiText. */
export function headingStyleFor(path: string): HeadingStyle {
  return /\.(md|markdown)$/i.test(path) ? "markdown" : "wikitext";
}

/**
 * The title when `line` is a top-level heading: WikiText's ` = Title = ` (not the ` = = Section = = `
 * subsections) or Markdown's `# Title` (not `## Section`). Otherwise null.
 */
export function headingTitle(line: string, style: HeadingStyle): string | null {
  const trimmed = line.trim();
  if (style === "markdown") {
    const match = /^#[ \t]+(.+?)(?:[ \t]+#+)?$/.exec(trimmed);
    return match ? (match[1] as string).trim() : null;
  }
  const match = /^=[ \t]+(.+?)[ \t]+=$/.exec(trimmed);
  if (!match) return null;
  const title = (match[1] as string).trim();
  return title.startsWith("=") || title.endsWith("=") ? null : title;
}

/** A Markdown code fence line (``` or ~~~): headings inside fences (e.g. Python comments) are not headings. */
export function isFence(line: string): boolean {
  return /^\s{0,3}(```|~~~)/.test(line);
}
