/** The version of `@trust/cli`; a unit test keeps it equal to package.json. */
export const CLI_VERSION = '0.1.0';
