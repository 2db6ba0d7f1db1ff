// Small real test images: a region of a tests/data image, cut with Pillow at test time (PNG bytes).
import { join } from 'node:path';
import { DATA, runNative } from './fixtures.js';

const CUT = `
import base64, io, sys
from PIL import Image
path, box = sys.argv[1], tuple(int(v) for v in sys.argv[2:6])
out = io.BytesIO()
Image.open(path).convert("RGB").crop(box).save(out, format="PNG")
print(base64.b64encode(out.getvalue()).decode())
`;

/** PNG bytes (Buffer) of `box` = [left, top, right, bottom] of tests/data/<image>. */
export async function cropPng(image, box) {
  const b64 = await runNative(['-c', CUT, join(DATA, image), ...box.map(String)]);
  return Buffer.from(b64.trim(), 'base64');
}

// baiona.png regions (640x682 map). A square crop's det input is exactly 736x736 (det scales the short side up to
// 736), which is the smallest WebGL det bucket, so no bucket padding is involved and wasm is a fair reference.
export const BAIONA_FOUR_LABELS = [340, 240, 640, 540]; // Lehuntze, Mugerre, Attumi, Hiriburu
export const BAIONA_ONE_LABEL = [330, 390, 450, 510]; // Hiriburu alone: one rec line, for SwiftShader WebGPU
