/** The HTTP status for a failed call, from the engine error's name. */
export function statusForError(name: string): number {
  switch (name) {
    case "ApiInputError":
    case "InputError":
      return 400;
    case "NotFoundError":
      return 404;
    case "UnavailableError":
      return 503;
    default:
      return 500;
  }
}
