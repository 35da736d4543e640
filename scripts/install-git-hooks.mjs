// npm's `prepare` step: installs the pre-commit hook that package.json's "simple-git-hooks" names (Biome on the
// staged files) into a developer's own clone, and does nothing anywhere else:
// - not in CI (CI is set), nor when SKIP_INSTALL_SIMPLE_GIT_HOOKS is 1 or true;
// - not in a tree without .git (a tarball, a container's build context);
// - not from a linked worktree, whose .git is a file: git runs the hooks of the main checkout's .git/hooks for
//   every worktree, and a worktree that wrote them would overwrite the main checkout's (simple-git-hooks 2.13
//   also fails there). Running `npm install` in the main checkout installs the hook for all of them.
// A hook that cannot be installed is a warning, never a failed install.
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { createRequire } from "node:module";

function reasonToSkip() {
  if (process.env.CI) return "CI";
  if (["1", "true"].includes(process.env.SKIP_INSTALL_SIMPLE_GIT_HOOKS ?? "")) return "SKIP_INSTALL_SIMPLE_GIT_HOOKS";
  let git;
  try {
    git = statSync(".git");
  } catch {
    return "no .git here";
  }
  if (!git.isDirectory()) return "a linked worktree: run npm install in the main checkout";
  return null;
}

const reason = reasonToSkip();
if (reason) {
  console.log(`git hooks: not installed (${reason})`);
} else {
  let cli;
  try {
    cli = createRequire(import.meta.url).resolve("simple-git-hooks/cli.js");
  } catch {
    console.warn("git hooks: simple-git-hooks is not installed (devDependencies left out?); no hook set");
  }
  if (cli) {
    const run = spawnSync(process.execPath, [cli], { stdio: "inherit" });
    if (run.status !== 0)
      console.warn("git hooks: simple-git-hooks failed; commits are not checked before they are made");
  }
}
