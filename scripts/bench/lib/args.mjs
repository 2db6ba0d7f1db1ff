// The command-line basics every benchmark script shares: the repository root, `--name value` options, bare
// flags, and the five pages the browser benchmarks read by default (those of scripts/bench/vs_tesseract.mjs).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const args = process.argv.slice(2);
/** The value after `name` on the command line, or `dflt`. */
export const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
/** Whether the bare flag `name` was given. */
export const flag = (name) => args.includes(name);
export const BENCH_PAGES = 'english_prose,english_two_column,invoice,french,photo_page';
/** `--pages a,b,...` as a list (default: BENCH_PAGES). */
export const pagesOpt = () => opt('--pages', BENCH_PAGES).split(',');

/** Chromium flags for every benchmark: no GPU, and nothing in the background that would compete for the cores. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** The median of the values that are not null/undefined (a missing measurement does not count). */
export const median = (xs) => {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** The labelled test pages (scripts/data/make_testset.py), served by the benchmarks under /__pages__/. */
export const PAGES_DIR = join(ROOT, 'tests', 'testset', 'pages');
/** The URL of a labelled page's image, from its ground-truth file. */
export const pageUrl = (p) => `/__pages__/${JSON.parse(readFileSync(join(PAGES_DIR, `${p}.gt.json`), 'utf8')).image}`;
