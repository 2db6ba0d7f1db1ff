// The native suite's bad inputs (tests/py/io/test_bad_inputs.py generators) + a 1x1 image: the browser gives the
// same error codes as the native Session, and the same worker (same interpreter) keeps working afterwards.
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, runNative, test } from '../fixtures.js';

test('bad inputs: same error codes as native, worker survives', async ({ engine }) => {
  const dir = mkdtempSync(join(tmpdir(), 'retto-bad-'));
  const nativeOut = runNative(['tests/e2e/native_ref.py', 'bad-inputs', dir]);
  const native = JSON.parse(await nativeOut);
  expect(Object.keys(native).sort()).toEqual(['bomb_50000x50000.png', 'empty.png', 'notes.png', 'one_pixel.png',
    'truncated.jpg', 'truncated.png']);
  await engine.page.evaluate(() => window.ocr.evalPython('import builtins\nbuiltins._retto_e2e_marker = 4242'));

  for (const [name, want] of Object.entries(native)) {
    const t0 = Date.now();
    const got = await engine.recognize(readFileSync(join(dir, name)));
    if (want.error) {
      expect(got.error?.code, `${name}: ${JSON.stringify(got)}`).toBe(want.error.code);
      expect(got.error.message.length, name).toBeGreaterThan(10);
      expect(Date.now() - t0, `${name} must be refused without decoding it`).toBeLessThan(10000);
    } else {
      expect(got.error, name).toBeUndefined();
      expect(got.result.image, name).toEqual(want.image);
      expect(got.result.lines.length, name).toBe(want.lines);
    }
  }
  // Same interpreter (not a replaced worker), and it still recognises a real image.
  expect(await engine.page.evaluate(() => window.ocr.evalPython('import builtins\nbuiltins._retto_e2e_marker'))).toBe(4242);
  const { result } = await engine.recognize('baiona.png');
  expect(result.lines.length).toBeGreaterThanOrEqual(15);
});
