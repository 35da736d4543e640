#!/usr/bin/env node
// The routekit command. A file that exists before the build, so npm links the bin when it installs the
// package (npm skips a bin whose file is missing, and dist/ is built after install).
import "../dist/cli.js";
