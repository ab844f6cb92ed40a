#!/usr/bin/env node
// Generates src/schema.ts, the client's types, from the service's OpenAPI document with
// openapi-typescript. `node scripts/generate.mjs [url | file]`: the document of a running service
// (default http://localhost:3000/v1/openapi.json) or a saved one. The tests check that the committed
// file is what the service's document generates.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const HEADER = `// Generated from the engage API's OpenAPI document by openapi-typescript: do not edit.
// Regenerate with \`npm run generate --workspace client -- <service URL>\` (README "The typed client").

`;

/** The types of `document` (the parsed OpenAPI document), as the file's text. */
export async function generateTypes(document) {
  const ast = await openapiTS(document, { silent: true });
  return HEADER + astToString(ast);
}

export const SCHEMA_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'schema.ts');

async function readDocument(source) {
  if (/^https?:\/\//.test(source)) {
    const url = source.endsWith('.json') ? source : `${source.replace(/\/$/, '')}/v1/openapi.json`;
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
    return res.json();
  }
  return JSON.parse(await readFile(source, 'utf8'));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const source = process.argv[2] ?? 'http://localhost:3000/v1/openapi.json';
  await writeFile(SCHEMA_FILE, await generateTypes(await readDocument(source)));
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)} from ${source}`);
}
