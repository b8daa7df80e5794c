// Where the CLI's bundle lives: its entry, and the list of source files (with size and modification time) it was
// built from. Shared by scripts/build.mjs, which writes them, and scripts/cli.mjs, which reads them on every command.
export const CLI_BUNDLE = { dir: '.build/cli', entry: '.build/cli/index.mjs', inputs: '.build/cli/inputs.json' };
