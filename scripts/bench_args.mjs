// The command-line basics every benchmark script shares: the repository root, `--name value` options, bare
// flags, and the five pages the browser benchmarks read by default (those of scripts/bench_vs_tesseract.mjs).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const args = process.argv.slice(2);
/** The value after `name` on the command line, or `dflt`. */
export const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
/** Whether the bare flag `name` was given. */
export const flag = (name) => args.includes(name);
export const BENCH_PAGES = 'english_prose,english_two_column,invoice,french,photo_page';
/** `--pages a,b,...` as a list (default: BENCH_PAGES). */
export const pagesOpt = () => opt('--pages', BENCH_PAGES).split(',');
