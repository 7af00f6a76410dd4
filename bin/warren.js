#!/usr/bin/env node
// The `warren` command: the controller's CLI, built into dist/ by `npm run build`.
import '../dist/apps/controller/src/cli/main.js';
