/** The workspace file is SQLite but damaged (SQLite's integrity check names the page). */
export class DatabaseDamagedError extends Error {
  override readonly name = "DatabaseDamagedError";
  constructor(
    readonly path: string,
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(
      `workspace database ${path} is damaged (${problem}): restore it from a backup, or recover what is readable with ` +
        `\`sqlite3 ${path} .recover | sqlite3 recovered.sqlite\``,
      options,
    );
  }
}
