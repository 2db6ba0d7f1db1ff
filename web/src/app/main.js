// Minimal runtime page (web/dev.html): pick an image, show the JSON result; the e2e runtime tests drive the client
// API through it (window.Retto, ?boot=0). The product page is web/index.html (web/src/ui/).
import { Retto } from '../client/retto.js';

const $ = (id) => document.getElementById(id);
const status = (text) => { $('status').textContent = text; };
let ocr = null;

async function boot(backend) {
  ocr?.terminate();
  $('file').disabled = true;
  const t0 = performance.now();
  try {
    ocr = await Retto.create({
      backend,
      onProgress: (e) => status(`Loading ${e.file}: ${(e.loaded / 1e6).toFixed(1)} / ${(e.total / 1e6).toFixed(1)} MB`),
    });
  } catch (e) {
    status(`Failed to start: ${e.code}: ${e.message}`);
    return;
  }
  window.retto = ocr; // for the console and for tests
  const i = ocr.info;
  status(`Ready in ${((performance.now() - t0) / 1000).toFixed(1)} s — det ${i.backend.det}, cls ${i.backend.cls}, `
    + `rec ${i.backend.rec}; wasm threads ${i.wasm.threads} (${i.wasm.threadsReason})`);
  $('file').disabled = false;
}

$('file').addEventListener('change', async () => {
  const file = $('file').files[0];
  if (!file) return;
  status(`Recognizing ${file.name}…`);
  try {
    const result = await ocr.recognize(file, { onProgress: (e) => status(`${file.name}: ${e.stage} ${JSON.stringify(e)}`) });
    $('output').textContent = JSON.stringify(result, null, 2);
    status(`${file.name}: ${result.lines.length} lines in ${Math.round(result.timings.total)} ms`);
  } catch (e) {
    $('output').textContent = JSON.stringify({ error: { code: e.code, message: e.message } }, null, 2);
    status(`${file.name}: ${e.code}`);
  }
});
$('backend').addEventListener('change', () => boot($('backend').value));

window.Retto = Retto; // the client API, for the console and the e2e tests
const params = new URLSearchParams(location.search);
if (params.get('backend')) $('backend').value = params.get('backend');
if (params.get('boot') !== '0') boot($('backend').value);
else status('Not started (boot=0).');
