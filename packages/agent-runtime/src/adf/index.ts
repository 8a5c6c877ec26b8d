export { createAdf, openAdf } from './adf-file.js';
export type { AdfFile, CreateAdfOptions, OpenAdfOptions } from './adf-file.js';
