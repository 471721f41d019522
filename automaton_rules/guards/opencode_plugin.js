// opencode plugin: ask automaton-rules before every tool call and refuse what it denies;
// give the model the workflow's state with every request and in every compaction summary.
// Install with `automaton-install --project DIR --harness opencode`, which writes this file
// to .opencode/plugin/ with HOOK set to the absolute path of automaton-hook; a copy made by
// hand needs automaton-hook on PATH. A missing hook denies every tool call (fail closed).
// Export nothing else from this file: opencode calls every export as a plugin.

const HOOK = "automaton-hook";

// Runs the hook as the JSON configurations of the other harnesses do, on one event.
async function ask($, event) {
  const input = new Response(JSON.stringify(event));
  return await $`${HOOK} --harness opencode < ${input}`.nothrow().quiet();
}

export const AutomatonGuard = async ({ $, directory }) => {
  const context = async (source) => {
    const result = await ask($, { hook_event_name: "SessionStart", source, cwd: directory });
    try {
      return JSON.parse(result.stdout.toString()).additionalContext || "";
    } catch {
      return "";
    }
  };
  return {
    "tool.execute.before": async (input, output) => {
      const event = {
        hook_event_name: "PreToolUse",
        tool_name: input.tool,
        tool_input: (output && output.args) || {},
        cwd: directory,
      };
      const result = await ask($, event);
      if (result.exitCode !== 0) {
        const reason = result.stderr.toString().trim();
        throw new Error(reason || "automaton-rules denied this action");
      }
    },
    "experimental.chat.system.transform": async (_input, output) => {
      const text = await context("startup");
      if (text) output.system.push(text);
    },
    "experimental.session.compacting": async (_input, output) => {
      const text = await context("compact");
      if (text) output.context.push(text);
    },
  };
};
