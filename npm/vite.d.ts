import type { Plugin } from 'vite';
/** Serves (dev) and copies (build) the OCR runtime assets as `<base><dir>/` (default dir: retto). */
export default function rettoOcr(options?: { dir?: string }): Plugin;
