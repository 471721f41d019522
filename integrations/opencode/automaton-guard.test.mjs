// node --test integrations/opencode/ — the plugin against a stubbed Bun shell that runs
// the real automaton-hook (AUTOMATON_HOOK names it) on the payload the plugin sends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { AutomatonGuard, hookPayload } from "./automaton-guard.js";

const HOOK = process.env.AUTOMATON_HOOK || "automaton-hook";
const PROJECT = process.env.AUTOMATON_PROJECT;

function stubShell(calls) {
  return (strings, ...values) => {
    const command = strings.join("<value>").trim();
    const chain = {
      nothrow: () => chain,
      quiet: () => chain,
      then: async (resolve, reject) => {
        try {
          const payload = await values[0].text();
          calls.push({ command, payload });
          const run = spawnSync(HOOK, ["--harness", "opencode"], { input: payload });
          resolve({ exitCode: run.status, stdout: run.stdout, stderr: run.stderr });
        } catch (error) {
          reject(error);
        }
      },
    };
    return chain;
  };
}

test("the payload carries the tool, its arguments and the directory", () => {
  const payload = JSON.parse(hookPayload({ tool: "edit" }, { args: { filePath: "/p/a.py" } }, "/p"));
  assert.deepEqual(payload, { tool_name: "edit", tool_input: { filePath: "/p/a.py" }, cwd: "/p" });
});

test("an edit the workflow forbids throws the reason", { skip: !PROJECT }, async () => {
  const calls = [];
  const hooks = await AutomatonGuard({ $: stubShell(calls), directory: PROJECT });
  await assert.rejects(
    hooks["tool.execute.before"]({ tool: "edit" }, { args: { filePath: `${PROJECT}/src/app.py` } }),
    /DENIED: No task in project .* \(guarded: research\)/,
  );
  assert.equal(calls.length, 1);
  assert.match(calls[0].command, /^automaton-hook --harness opencode </);
});

test("writing .state through the shell throws", { skip: !PROJECT }, async () => {
  const hooks = await AutomatonGuard({ $: stubShell([]), directory: PROJECT });
  await assert.rejects(
    hooks["tool.execute.before"]({ tool: "bash" }, { args: { command: "echo implement > .automaton/tasks/guarded/.state" } }),
    /workflow state/,
  );
});

test("reading is allowed", { skip: !PROJECT }, async () => {
  const hooks = await AutomatonGuard({ $: stubShell([]), directory: PROJECT });
  await hooks["tool.execute.before"]({ tool: "bash" }, { args: { command: "cat src/app.py" } });
  await hooks["tool.execute.before"]({ tool: "read" }, { args: { filePath: `${PROJECT}/src/app.py` } });
});
