// Node module hooks for tests/py/browser/test_js_facts.py: lets plain Node import the web app's modules as Vite
// does, where a bare `import x from './y.json'` is a JSON module, and gives the generated
// web/src/generated/python_facts.json the file named by RETTO_PYTHON_FACTS (the test writes retto.browser.facts'
// js_facts() there, so no build is needed and the source tree is not written).
import { readFile } from 'node:fs/promises';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

// `node --import` runs this on the main thread, which registers it again as hooks (run on Node's loader thread).
if (isMainThread) register(import.meta.url, { data: { facts: process.env.RETTO_PYTHON_FACTS ?? null } });

let facts = null;

export function initialize(data) {
  facts = data?.facts ?? null;
}

export async function resolve(specifier, context, next) {
  if (facts && specifier.endsWith('/python_facts.json')) return { url: pathToFileURL(facts).href, shortCircuit: true };
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url.endsWith('.json')) {
    const text = await readFile(new URL(url), 'utf8');
    return { format: 'module', source: `export default ${text};`, shortCircuit: true };
  }
  return next(url, context);
}
