// node --test integrations/opencode/ — the plugin against a stubbed Bun shell that runs
// the command the plugin builds for real, `sh` and the automaton-hook on PATH included.
// AUTOMATON_PROJECT is a project whose only task, `guarded`, is in research.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as plugin from "./automaton-guard.js";

const { AutomatonGuard } = plugin;
const PROJECT = process.env.AUTOMATON_PROJECT;
// The lookup of the launcher the JSON configurations' commands source (.automaton/hook.sh),
// on one line: `HOOK_LOOKUP` of guards/hooks/lookup.py, as the plugin holds it.
const SOURCE = readFileSync(new URL("./automaton-guard.js", import.meta.url), "utf-8");
const LOOKUP = JSON.parse(SOURCE.match(/^const LOOKUP = (.*);$/m)[1]);

// Bun's `$` as the plugin uses it: words, each `${value}` one argument, `< ${Response}` stdin.
function stubShell(calls) {
  return (strings, ...values) => {
    const chain = {
      nothrow: () => chain,
      quiet: () => chain,
      then: async (resolve, reject) => {
        try {
          const argv = [];
          let input = null;
          strings.forEach((text, index) => {
            argv.push(...text.split(/\s+/).filter(Boolean));
            if (index >= values.length) return;
            if (argv[argv.length - 1] === "<") {
              argv.pop();
              input = values[index];
            } else {
              argv.push(String(values[index]));
            }
          });
          const payload = await input.text();
          calls.push({ argv, event: JSON.parse(payload) });
          const run = spawnSync(argv[0], argv.slice(1), { input: payload });
          resolve({ exitCode: run.status, stdout: run.stdout, stderr: run.stderr });
        } catch (error) {
          reject(error);
        }
      },
    };
    return chain;
  };
}

async function hooks(calls = []) {
  return await AutomatonGuard({ $: stubShell(calls), directory: PROJECT });
}

test("the file exports the plugin and nothing else (opencode calls every export)", () => {
  assert.deepEqual(Object.keys(plugin), ["AutomatonGuard"]);
});

test("the hook runs the launcher's lookup, on the tool call", { skip: !PROJECT }, async () => {
  const calls = [];
  const guard = await hooks(calls);
  await guard["tool.execute.before"]({ tool: "read" }, { args: { filePath: `${PROJECT}/src/app.py` } });
  assert.equal(calls.length, 1);
  assert.match(LOOKUP, /^h="\$\(command -v "\$0"\)"/);
  assert.deepEqual(calls[0].argv, ["sh", "-c", LOOKUP, "automaton-hook", "--harness", "opencode"]);
  assert.deepEqual(calls[0].event, {
    hook_event_name: "PreToolUse",
    tool_name: "read",
    tool_input: { filePath: `${PROJECT}/src/app.py` },
    cwd: PROJECT,
  });
});

test("an edit the workflow forbids throws the reason", { skip: !PROJECT }, async () => {
  const guard = await hooks();
  await assert.rejects(
    guard["tool.execute.before"]({ tool: "edit" }, { args: { filePath: `${PROJECT}/src/app.py` } }),
    /DENIED: No task in project .* \(guarded: research\)/,
  );
});

test("writing .state through the shell throws", { skip: !PROJECT }, async () => {
  const guard = await hooks();
  await assert.rejects(
    guard["tool.execute.before"](
      { tool: "bash" },
      { args: { command: "echo implement > .automaton/tasks/guarded/.state" } },
    ),
    /workflow state/,
  );
});

test("a patch that adds a .state file throws, as Codex's does", { skip: !PROJECT }, async () => {
  const patchText =
    "*** Begin Patch\n*** Add File: .automaton/tasks/guarded/.state\n+implement\n*** End Patch\n";
  const guard = await hooks();
  await assert.rejects(
    guard["tool.execute.before"]({ tool: "apply_patch" }, { args: { patchText } }),
    /workflow state/,
  );
});

test("a patch that rewrites automaton.toml throws: only the user changes it", { skip: !PROJECT }, async () => {
  const patchText = '*** Begin Patch\n*** Add File: automaton.toml\n+ignore = ["AR"]\n*** End Patch\n';
  const guard = await hooks();
  await assert.rejects(
    guard["tool.execute.before"]({ tool: "apply_patch" }, { args: { patchText } }),
    /automaton\.toml' is the workflow's configuration; only the user changes it/,
  );
});

test("a line only running decides is put inside the sandbox, in place", { skip: !PROJECT || !process.env.AUTOMATON_SANDBOXED }, async () => {
  const guard = await hooks();
  const output = { args: { command: "python3 -c 'print(1)'", description: "d" } };
  await guard["tool.execute.before"]({ tool: "bash" }, output);
  assert.equal(output.args.description, "d");
  assert.notEqual(output.args.command, "python3 -c 'print(1)'");
  assert.match(output.args.command, /python3 -c/);
});

test("reading is allowed", { skip: !PROJECT }, async () => {
  const guard = await hooks();
  await guard["tool.execute.before"]({ tool: "bash" }, { args: { command: "cat src/app.py" } });
  await guard["tool.execute.before"]({ tool: "read" }, { args: { filePath: `${PROJECT}/src/app.py` } });
});

test("every request and every compaction carry the task's phase", { skip: !PROJECT }, async () => {
  const calls = [];
  const guard = await hooks(calls);
  const system = { system: ["You are opencode."] };
  await guard["experimental.chat.system.transform"]({ sessionID: "s1" }, system);
  assert.equal(system.system.length, 2);
  assert.match(system.system[1], /- guarded: research phase \(state research\)/);
  const summary = { context: [] };
  await guard["experimental.session.compacting"]({ sessionID: "s1" }, summary);
  assert.match(summary.context[0], /guarded: research phase/);
  assert.deepEqual(
    calls.map((call) => [call.event.hook_event_name, call.event.source]),
    [["SessionStart", "startup"], ["SessionStart", "compact"]],
  );
});

// opencode's client as the plugin uses it: a session with or without a parent.
function stubClient(parentID) {
  return { session: { get: async () => ({ data: parentID ? { parentID } : {} }) } };
}

function message(text) {
  return { message: { id: "msg_1" }, parts: [{ id: "prt_1", type: "text", text }] };
}

test("an ordinary message passes untouched, without running the hook", { skip: !PROJECT }, async () => {
  const calls = [];
  const guard = await AutomatonGuard({ $: stubShell(calls), directory: PROJECT, client: stubClient() });
  const output = message("please fix the login bug");
  await guard["chat.message"]({ sessionID: "s1" }, output);
  assert.equal(calls.length, 0);
  assert.equal(output.parts.length, 1);
});

test("`approve TASK` typed by the user reaches the hook; its answer is added for the model", { skip: !PROJECT }, async () => {
  const calls = [];
  const guard = await AutomatonGuard({ $: stubShell(calls), directory: PROJECT, client: stubClient() });
  const output = message("approve guarded");
  await guard["chat.message"]({ sessionID: "s1" }, output);
  assert.deepEqual(calls[0].event, {
    hook_event_name: "UserPromptSubmit",
    session_id: "s1",
    cwd: PROJECT,
    prompt: "approve guarded",
  });
  // `guarded` is in research, not at a gate: the answer says nothing was approved.
  assert.equal(output.parts.length, 2);
  assert.equal(output.parts[1].synthetic, true);
  assert.equal(output.parts[1].messageID, "msg_1");
  assert.match(output.parts[1].id, /^prt/);
  assert.match(output.parts[1].text, /did not record the user's approval/);
});

test("`approve TASK` in the quotes `opencode run` adds around a spaced word reaches the hook", { skip: !PROJECT }, async () => {
  // opencode run 1.18 joins its words, each one with a space wrapped in double quotes.
  const calls = [];
  const guard = await AutomatonGuard({ $: stubShell(calls), directory: PROJECT, client: stubClient() });
  await guard["chat.message"]({ sessionID: "s1" }, message('"approve guarded"'));
  assert.equal(calls.length, 1);
  assert.equal(calls[0].event.prompt, '"approve guarded"');
});

test("a subagent's message approves nothing", { skip: !PROJECT }, async () => {
  const calls = [];
  const guard = await AutomatonGuard({ $: stubShell(calls), directory: PROJECT, client: stubClient("parent") });
  const output = message("approve guarded");
  await guard["chat.message"]({ sessionID: "child" }, output);
  assert.equal(calls.length, 0);
  assert.equal(output.parts.length, 1);
});
