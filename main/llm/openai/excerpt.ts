/** The first `max` characters of a body, on one line, for error messages. */
export function excerpt(text: string, max = 300): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}...` : line;
}
