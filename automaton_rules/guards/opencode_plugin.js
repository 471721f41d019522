// opencode plugin: ask automaton-rules before every tool call, and refuse what it denies.
// Install: copy this file to .opencode/plugin/ (project) or ~/.config/opencode/plugin/.
// It needs `automaton-hook` on PATH (pip install automaton-rules).

export function hookPayload(input, output, directory) {
  return JSON.stringify({
    tool_name: input.tool,
    tool_input: (output && output.args) || {},
    cwd: directory,
  });
}

export const AutomatonGuard = async ({ $, directory }) => {
  return {
    "tool.execute.before": async (input, output) => {
      const payload = hookPayload(input, output, directory);
      const result = await $`automaton-hook --harness opencode < ${new Response(payload)}`
        .nothrow()
        .quiet();
      if (result.exitCode !== 0) {
        const reason = result.stderr.toString().trim();
        throw new Error(reason || "automaton-rules denied this action");
      }
    },
  };
};

export default AutomatonGuard;
