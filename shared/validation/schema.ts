// Schemas for untrusted JSON (config files, API input), written with zod, and one place that turns
// zod's issues into the messages this project gives: the source, the field, what was expected and
// what was found (`run.json: backend.threads: expected an integer >= 1, got "x"`).
import * as z from "zod";
import { closestKey } from "./closestKey.js";
import { InputError } from "./InputError.js";

/** What a field expects, in words, kept with its schema (zod's metadata) for the messages. */
interface Expectation {
  expected: string;
}

/**
 * The expected words of each builder's schema. A registry of its own (not zod's global metadata),
 * so a JSON Schema made with `z.toJSONSchema` carries only descriptions; `.describe()` and `.meta()`
 * copies inherit the words from the schema they were made from.
 */
const expectations = z.registry<Expectation>();

/** Gives `schema` the words a message uses for what it expects ("an integer >= 1"). */
export function expecting<T extends z.ZodType>(schema: T, expected: string): T {
  const copy = schema.clone() as T;
  expectations.add(copy, { expected });
  return copy;
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

/** True when A and B are the same type (each assignable to the other): `Assert<Same<...>>` checks a schema against an interface. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only when `T` is true. */
export type Assert<T extends true> = T;

/** An object of named strings (environment variables): any key, each value a bounded string. */
export function textRecord(options: TextOptions = {}): z.ZodRecord<z.ZodString, z.ZodString> {
  return expecting(z.record(z.string(), text(options)), "an object of strings");
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

/**
 * Config files: `run.json: designer.attempts: expected an integer in [1, 20], got 0`. `prefix`
 * names where the parsed value sits in its file (`backend` when only that block is parsed).
 */
export function configStyle(where: string, prefix = ""): IssueStyle {
  const named = (field: string) => (!prefix ? field : !field ? prefix : field.startsWith("[") ? prefix + field : `${prefix}.${field}`);
  return {
    format: (field, words) => `${where}: ${named(field) ? `${named(field)}: ` : ""}${words}`,
    unknownKey: (field, known) => {
      const meant = closestKey(field.slice(field.lastIndexOf(".") + 1), known);
      return `${where}: ${named(field)}: unknown key${meant === null ? "" : `; did you mean "${meant}"?`} (known keys: ${known.join(", ")})`;
    },
    missingKey: (field) => `${where}: ${named(field)}: required key is missing`,
  };
}

/** Parses `value` with `schema`, or throws an InputError whose message names the file and the key. */
export function parseConfig<T>(schema: z.ZodType<T>, value: unknown, where: string, prefix = ""): T {
  const result = safeParseInput(schema, value, configStyle(where, prefix));
  if (!result.ok) throw new InputError(result.message);
  return result.value;
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
  return { ok: false, message: describeIssue(schema, result.error.issues[0]!, style, value) };
}

function describeIssue(root: z.ZodType, issue: z.core.$ZodIssue, style: IssueStyle, value: unknown, at?: z.ZodType): string {
  const path = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : String(part)));
  const field = path.reduce((joined, part) => (part.startsWith("[") ? joined + part : joined ? `${joined}.${part}` : part), "");
  const input = (issue as { input?: unknown }).input;
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const known = Object.keys(objectShape(schemaAt(root, issue.path, value)) ?? {});
    return style.unknownKey(field ? `${field}.${key}` : key, known);
  }
  if (issue.code === "invalid_union") {
    const discriminator = (issue as { discriminator?: string }).discriminator;
    if (discriminator !== undefined) {
      // No option has this discriminator value (`backend.kind`): the issue's input is the object.
      const options = ((issue as { options?: unknown[] }).options ?? []).map((option) => JSON.stringify(option)).join(", ");
      const found = typeof input === "object" && input !== null ? (input as Record<string, unknown>)[discriminator] : undefined;
      return style.format(field, `expected one of ${options}, got ${shown(found)}`);
    }
    if (input === undefined) return style.missingKey(field);
    // The option of the value's own type names the problem inside it; when every option refuses
    // the value's type, the union's words (or an option refusing only the value) say what fits.
    const union = schemaAt(root, issue.path, value);
    const options = (unwrap(union)?.def as { options?: z.ZodType[] } | undefined)?.options ?? [];
    const ownWords = expectationOf(union);
    const inside = issue.errors.findIndex((issues) => issues.length > 0 && !wrongBranch(issues));
    const chosen = inside >= 0 ? inside : ownWords ? -1 : issue.errors.findIndex((issues) => issues[0]?.code === "invalid_value");
    const first = issue.errors[chosen]?.[0];
    if (first) return describeIssue(root, { ...first, path: [...issue.path, ...first.path] } as z.core.$ZodIssue, style, value, first.path.length === 0 ? options[chosen] : undefined);
    return style.format(field, `expected ${ownWords ?? issue.message}, got ${shown(input)}`);
  }
  if (issue.code === "custom" && (issue.params as { final?: boolean } | undefined)?.final) return style.format(field, issue.message);
  if (issue.code === "invalid_type" && input === undefined) return style.missingKey(field);
  const expected = expectationOf(at ?? schemaAt(root, issue.path, value)) ?? issue.message;
  return style.format(field, `expected ${expected}, got ${shown(input)}`);
}

/** Whether a union option refused the value's type or value at its top (it is not the option meant). */
function wrongBranch(issues: readonly z.core.$ZodIssue[]): boolean {
  const first = issues[0];
  return first !== undefined && first.path.length === 0 && (first.code === "invalid_type" || first.code === "invalid_value");
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

/**
 * The schema that checks the value at `path`, looking through optional, default, nullable and
 * pipes; at a union, the option the value is meant for (by discriminator, else by type).
 */
function schemaAt(root: z.ZodType, path: readonly PropertyKey[], value: unknown): z.ZodType | undefined {
  let schema: z.ZodType | undefined = root;
  let current = value;
  for (const part of [...path, undefined]) {
    schema = unwrap(schema);
    if (!schema) return undefined;
    const def = schema.def as { type: string; element?: z.ZodType; valueType?: z.ZodType; options?: z.ZodType[]; discriminator?: string };
    if (def.type === "union" && def.options) {
      const options = def.options;
      const discriminator = def.discriminator;
      const fits = (option: z.ZodType) => {
        if (discriminator !== undefined) return objectShape(option)?.[discriminator]?.safeParse((current as Record<string, unknown> | undefined)?.[discriminator]).success ?? false;
        const result = option.safeParse(current);
        return result.success || !wrongBranch(result.error.issues);
      };
      const option = options.find(fits);
      // At the end of the path a union with words of its own speaks for itself.
      if (part === undefined) return expectationOf(schema) !== undefined ? schema : (option ?? schema);
      if (!option) return undefined;
      schema = unwrap(option);
    }
    if (part === undefined) return schema;
    const shapeDef = schema!.def as typeof def;
    if (shapeDef.type === "object") schema = objectShape(schema)?.[String(part)];
    else if (shapeDef.type === "array") schema = shapeDef.element;
    else if (shapeDef.type === "record") schema = shapeDef.valueType;
    else if (shapeDef.type === "tuple") schema = (shapeDef as { items?: z.ZodType[] }).items?.[Number(part)];
    else return undefined;
    current = typeof current === "object" && current !== null ? (current as Record<PropertyKey, unknown>)[part] : undefined;
  }
  return schema;
}

/** The expected words of a schema or of the schema it wraps. */
function expectationOf(schema: z.ZodType | undefined): string | undefined {
  let current = schema;
  while (current) {
    const found = (current.meta() as Partial<Expectation> | undefined)?.expected ?? expectations.get(current)?.expected;
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
