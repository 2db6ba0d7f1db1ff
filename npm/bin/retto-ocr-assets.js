#!/usr/bin/env node
// retto-ocr-assets [DIR]: copy the runtime assets into DIR (default public/retto), the folder Retto.create and
// <retto-ocr> load them from by default (retto/ under the page's URL). Give another DIR with the matching
// assetBase / asset-base.
import { resolve } from 'node:path';
import { copyAssets } from '../copy_assets.js';

const args = process.argv.slice(2);
if (args.includes('-h') || args.includes('--help') || args.length > 1) {
  console.log('usage: retto-ocr-assets [DIR]   copy the OCR runtime assets into DIR (default: public/retto)');
  process.exit(args.length > 1 ? 2 : 0);
}
const dest = resolve(args[0] ?? 'public/retto');
copyAssets(dest);
console.log(`retto-ocr: runtime assets copied to ${dest}`);
