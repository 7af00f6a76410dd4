#!/usr/bin/env node
// The `warren` command, built into dist/ by `npm run build`. It needs the project's Node 24 (the
// `node` devDependency): on an older system Node it says so rather than failing on a missing API.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`warren: needs Node 24, this is Node ${process.versions.node}: run it as node_modules/.bin/node bin/warren.js (npm scripts do), or the installed warren command`);
  process.exit(2);
}
await import('../dist/apps/controller/src/cli/main.js');
