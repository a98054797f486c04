import type { IncomingMessage } from "node:http";

/** The request body was too large or not JSON. */
export class BodyError extends Error {
  override readonly name = "BodyError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Reads and parses a JSON request body of at most `maxBytes` (an empty body reads as `{}`). */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new BodyError(`request body is larger than ${maxBytes} bytes`, 413);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BodyError(`request body is not JSON: ${(error as Error).message}`, 400);
  }
}
