// The npm package's `retto-ocr/element`: importing it defines <retto-ocr> (and exports the client too).
export * from '../component/retto-ocr.js';
export { default } from '../component/retto-ocr.js';
