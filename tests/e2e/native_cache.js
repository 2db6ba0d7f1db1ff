// The native CLI's answers (`python -m retto ...`, written to stdout) kept for one Playwright run, so a reference
// that several tests compare with is computed once: e.g. baiona.png on the default set (backends.spec.js and the
// page specs), or a set on baiona.png (model_sets.spec.js, model_set_choice.spec.js, pwa.spec.js).
//
// Kept in test-results/e2e/native-cache/, inside Playwright's outputDir, which Playwright empties when a run starts:
// each run computes every reference afresh, once. The key is the exact arguments and working directory, the content
// of every input file or folder the arguments name, and the content of py/retto: a changed input or source is a
// miss, never a stale answer. Only CLI runs whose one effect is their output are kept (no --output DIR); the test
// helpers run through runNative (`-c` scripts, native_ref.py, the fixture makers) write files, so they always run.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const DIR = join(ROOT, 'test-results', 'e2e', 'native-cache');
const pending = new Map(); // key -> promise, so two tests asking at once (same worker) share one run

/** sha256 over the relative names and contents of every file under `path` (a file: its content). */
function hashPath(path, h = createHash('sha256'), base = path) {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name === '__pycache__' || name.endsWith('.pyc')) continue;
      hashPath(join(path, name), h, base);
    }
  } else {
    h.update(`${relative(base, path)}\0${st.size}\0`);
    h.update(readFileSync(path));
  }
  return h;
}

let sourcesHash = null;
function sources() {
  sourcesHash ??= hashPath(join(ROOT, 'py', 'retto')).digest('hex');
  return sourcesHash;
}

/** Whether `args` is a CLI run whose only effect is its stdout (and exit code). */
function cacheable(args) {
  return args[0] === '-m' && args[1] === 'retto' && !args.includes('--output') && !['models', 'batch'].includes(args[2]);
}

function keyOf(args, opts) {
  const cwd = opts.cwd ?? ROOT;
  const h = createHash('sha256');
  h.update(JSON.stringify({ args, cwd, env: opts.env ?? null, sources: sources() }));
  for (const a of args) {
    const path = isAbsolute(a) ? a : join(cwd, a);
    if (a.length < 4096 && existsSync(path)) h.update(`${a}\0${hashPath(path).digest('hex')}\0`);
  }
  return h.digest('hex');
}

/** `run()` resolves to the process's stdout or rejects with execFile's error (its code, stdout, stderr). */
export async function cachedNative(args, opts, run) {
  if (!cacheable(args)) return run();
  const key = keyOf(args, opts);
  const file = join(DIR, `${key}.json`);
  if (!pending.has(key)) {
    pending.set(key, (async () => {
      if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
      let entry;
      try {
        entry = { code: 0, stdout: await run() };
      } catch (e) {
        if (typeof e.code !== 'number') throw e; // killed, not started: nothing to keep
        entry = { code: e.code, stdout: e.stdout, stderr: e.stderr, message: e.message };
      }
      mkdirSync(DIR, { recursive: true });
      writeFileSync(`${file}.${process.pid}`, JSON.stringify({ args, ...entry }));
      renameSync(`${file}.${process.pid}`, file);
      return entry;
    })());
    pending.get(key).catch(() => pending.delete(key));
  }
  const entry = await pending.get(key);
  if (entry.code === 0) return entry.stdout;
  // As execFile rejects: the exit code and both outputs on the error (tests read e.code and e.stdout).
  throw Object.assign(new Error(entry.message), { code: entry.code, stdout: entry.stdout, stderr: entry.stderr });
}
