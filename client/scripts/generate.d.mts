/** The types of `document` (the parsed OpenAPI document), as the text of src/schema.ts. */
export function generateTypes(document: unknown): Promise<string>;
/** Where the generated types are written. */
export const SCHEMA_FILE: string;
