#!/usr/bin/env node
// The `warren-agent` command: the node agent, built into dist/ by `npm run build`.
import '../dist/apps/agent/src/main.js';
