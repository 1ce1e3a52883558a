/**
 * Checks an OpenAPI 3.0 document the way a reader's tools would: against the
 * OpenAPI Initiative's own JSON Schema of 3.0 documents
 * (test/vectors/openapi/schema-3.0.json), plus what that schema leaves out:
 * every `$ref` resolves, every array schema says what its items are, and
 * every default is of its schema's type.
 */
import fs from "node:fs";
import path from "node:path";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

let validator: ValidateFunction | undefined;
let ajv: Ajv | undefined;

function compiled(): { ajv: Ajv; validate: ValidateFunction } {
  if (!ajv || !validator) {
    ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validator = ajv.compile(JSON.parse(fs.readFileSync(path.resolve(__dirname, "../vectors/openapi/schema-3.0.json"), "utf8")) as object);
  }
  return { ajv, validate: validator };
}

/** Every value under `value` with its JSON pointer-ish path, depth first. */
function* walk(value: unknown, at: string): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* walk(item, `${at}/${i}`);
  } else if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    yield [at, record];
    for (const [key, member] of Object.entries(record)) yield* walk(member, `${at}/${key}`);
  }
}

/** Whether `value` is of the schema type `type` (OpenAPI 3.0: one type, `null` only where `nullable`). */
function ofType(value: unknown, type: string, nullable: boolean): boolean {
  if (value === null) return nullable;
  if (type === "array") return Array.isArray(value);
  if (type === "object") return typeof value === "object" && !Array.isArray(value);
  if (type === "integer") return Number.isInteger(value);
  return typeof value === type;
}

/** What is wrong with `doc` as an OpenAPI 3.0 document: `[]` when nothing. */
export function openApiProblems(doc: unknown): string[] {
  const { ajv: checker, validate } = compiled();
  const problems: string[] = [];
  if (!validate(doc)) problems.push(checker.errorsText(validate.errors, { separator: "\n" }));
  const schemas = ((doc as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {}) as Record<string, unknown>;
  for (const [at, node] of walk(doc, "")) {
    const ref = node.$ref;
    if (typeof ref === "string" && !(ref.startsWith("#/components/schemas/") && ref.slice(21) in schemas)) problems.push(`${at}: $ref ${ref} does not resolve`);
    if (node.type === "array" && node.items === undefined) problems.push(`${at}: an array schema without items`);
    if ("default" in node && typeof node.type === "string" && !ofType(node.default, node.type, node.nullable === true)) {
      problems.push(`${at}: default ${JSON.stringify(node.default)} is not of type ${node.type}`);
    }
  }
  return problems;
}
