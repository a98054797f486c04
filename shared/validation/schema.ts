// Schemas for untrusted JSON (config files, API input), written with zod, and one place that turns
// zod's issues into the messages this project gives: the source, the field, what was expected and
// what was found (`run.json: backend.threads: expected an integer >= 1, got "x"`).
import * as z from "zod";

/** What a field expects, in words, kept with its schema (zod's metadata) for the messages. */
interface Expectation {
  expected: string;
}

function expecting<T extends z.ZodType>(schema: T, expected: string): T {
  return schema.meta({ expected } satisfies Expectation) as T;
}

function rangeWords(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` in [${min}, ${max}]`;
  if (min !== undefined) return ` >= ${min}`;
  if (max !== undefined) return ` <= ${max}`;
  return "";
}

/** A whole number, optionally bounded (inclusive). */
export function int(min?: number, max?: number): z.ZodNumber {
  let schema = z.number().int();
  if (min !== undefined) schema = schema.min(min);
  if (max !== undefined) schema = schema.max(max);
  return expecting(schema, `an integer${rangeWords(min, max)}`);
}

/** A finite number, optionally bounded (inclusive). */
export function num(min?: number, max?: number): z.ZodNumber {
  let schema = z.number();
  if (min !== undefined) schema = schema.min(min);
  if (max !== undefined) schema = schema.max(max);
  return expecting(schema, min === undefined && max === undefined ? "a number" : `a number in [${min ?? -Infinity}, ${max ?? Infinity}]`);
}

/** The longest string a config field takes unless it says otherwise (names, paths, skills, commands). */
export const defaultMaxLength = 4096;

export interface TextOptions {
  /** Refuse "" and whitespace. Defaults to false. */
  nonEmpty?: boolean;
  /** Defaults to `defaultMaxLength` (4096 characters): free text never grows without bound. */
  maxLength?: number;
}

/** A string, bounded in length. */
export function text(options: TextOptions = {}): z.ZodString {
  const maxLength = options.maxLength ?? defaultMaxLength;
  const schema = z.string().max(maxLength);
  return expecting(options.nonEmpty ? schema.refine((value) => value.trim() !== "") : schema, options.nonEmpty ? `a non-empty string of at most ${maxLength} characters` : `a string of at most ${maxLength} characters`);
}

/** One of the given strings. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T): z.ZodEnum<{ [K in T[number]]: K }> {
  return expecting(z.enum(values), `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`);
}

export const bool = (): z.ZodBoolean => expecting(z.boolean(), "true or false");

/** A non-empty array of non-empty strings. */
export function textList(options: TextOptions = {}): z.ZodArray<z.ZodString> {
  return expecting(z.array(text({ nonEmpty: true, ...options })).min(1), "a non-empty array of strings");
}

/** An object with exactly these keys: an unknown key is refused by name. */
export function strict<S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$strict> {
  return expecting(z.strictObject(shape), "an object");
}

/**
 * A rule across fields (a `superRefine` step) adds its issue with this: `message` is said as it is,
 * after the field's name.
 */
export function addRuleIssue(context: z.RefinementCtx, path: PropertyKey[], message: string): void {
  context.addIssue({ code: "custom", path, message, params: { final: true } });
}

/** How a message names its source and field. */
export interface IssueStyle {
  /** The message for one issue: `field` is the dotted path (empty for the top level). */
  format(field: string, words: string): string;
  unknownKey(field: string, known: readonly string[]): string;
  missingKey(field: string): string;
}

/** Config files: `run.json: designer.attempts: expected an integer in [1, 20], got 0`. */
export function configStyle(where: string): IssueStyle {
  return {
    format: (field, words) => `${where}: ${field ? `${field}: ` : ""}${words}`,
    unknownKey: (field, known) => `${where}: ${field}: unknown key (known keys: ${known.join(", ")})`,
    missingKey: (field) => `${where}: ${field}: required key is missing`,
  };
}

/** API calls: `field "runId" must be an integer in [1, ...], got 0`. */
export const apiStyle: IssueStyle = {
  format: (field, words) => (field ? `field "${field}" ${words.replace(/^expected /, "must be ")}` : words.replace(/^expected /, "input must be ")),
  unknownKey: (field, known) => `field "${field}" must be absent (known fields: ${known.join(", ") || "none"})`,
  missingKey: (field) => `field "${field}" is required`,
};

/**
 * Parses `value` with `schema`; on failure returns the first issue as a message in `style` (the
 * expected words come from the failing field's schema, the value found is shown shortened).
 */
export function safeParseInput<T>(schema: z.ZodType<T>, value: unknown, style: IssueStyle): { ok: true; value: T } | { ok: false; message: string } {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, message: describeIssue(schema, result.error.issues[0]!, style) };
}

function describeIssue(root: z.ZodType, issue: z.core.$ZodIssue, style: IssueStyle): string {
  const path = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : String(part)));
  const field = path.reduce((joined, part) => (part.startsWith("[") ? joined + part : joined ? `${joined}.${part}` : part), "");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const known = Object.keys(objectShape(schemaAt(root, issue.path)) ?? {});
    return style.unknownKey(field ? `${field}.${key}` : key, known);
  }
  if (issue.code === "custom" && (issue.params as { final?: boolean } | undefined)?.final) return style.format(field, issue.message);
  const input = (issue as { input?: unknown }).input;
  if (issue.code === "invalid_type" && input === undefined) return style.missingKey(field);
  const expected = expectationOf(schemaAt(root, issue.path)) ?? issue.message;
  return style.format(field, `expected ${expected}, got ${shown(input)}`);
}

/** The value as a message shows it: JSON, long strings cut. */
export function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") {
    const cut = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return value.length > 60 ? `${JSON.stringify(cut)} (${value.length} characters)` : JSON.stringify(cut);
  }
  try {
    const json = JSON.stringify(value);
    if (json === undefined) return String(value);
    return json.length > 60 ? `${json.slice(0, 57)}...` : json;
  } catch {
    return String(value);
  }
}

/** The schema that checks the value at `path`, looking through optional, default, nullable and pipes. */
function schemaAt(root: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let schema: z.ZodType | undefined = root;
  for (const part of path) {
    schema = unwrap(schema);
    if (!schema) return undefined;
    const def = schema.def as { type: string; element?: z.ZodType; valueType?: z.ZodType; options?: z.ZodType[] };
    if (def.type === "object") schema = objectShape(schema)?.[String(part)];
    else if (def.type === "array") schema = def.element;
    else if (def.type === "record") schema = def.valueType;
    else if (def.type === "union") schema = def.options?.map((option) => schemaAt(option, [part])).find((found) => found !== undefined);
    else return undefined;
  }
  return schema;
}

/** The expected words of a schema or of the schema it wraps. */
function expectationOf(schema: z.ZodType | undefined): string | undefined {
  let current = schema;
  while (current) {
    const found = (current.meta() as Partial<Expectation> | undefined)?.expected;
    if (found) return found;
    const next = unwrapOnce(current);
    if (next === current) return undefined;
    current = next;
  }
  return undefined;
}

function unwrapOnce(schema: z.ZodType): z.ZodType {
  const def = schema.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  if (def.innerType && (def.type === "optional" || def.type === "default" || def.type === "nullable" || def.type === "prefault" || def.type === "readonly")) return def.innerType;
  if (def.type === "pipe" && def.in) return def.in;
  return schema;
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current) {
    const next = unwrapOnce(current);
    if (next === current) return current;
    current = next;
  }
  return undefined;
}

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  const inner = unwrap(schema);
  const def = inner?.def as { type: string; shape?: Record<string, z.ZodType> } | undefined;
  return def?.type === "object" ? def.shape : undefined;
}
