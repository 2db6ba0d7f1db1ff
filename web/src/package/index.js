// The npm package's main entry: the client (Retto, its pool, RettoError, EXPORT_FORMATS).
export * from '../client/retto.js';
export { default } from '../client/retto.js';
