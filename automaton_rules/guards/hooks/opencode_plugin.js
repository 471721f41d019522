// opencode plugin: ask automaton-rules before every tool call and refuse what it denies;
// give the model the workflow's state with every request and in every compaction summary;
// record `approve TASK`, typed by the user as a whole message, as the user's approval;
// when the agent goes idle while a task awaits approval, wait for the person's decision
// and send it on as the next message (automaton-hook's Stop event).
// Install with `automaton-install --project DIR --harness opencode`, which writes this file
// to .opencode/plugin/ as it is: it names no path of one machine, so a team commits it.
// It runs automaton-hook as the other harnesses' configurations do, through `sh`: the one
// on PATH, else ~/.automaton/bin/automaton-hook (the launcher automaton-install writes);
// where neither is there, how to install it, exit 2, and every tool call is denied.
// Export nothing else from this file: opencode calls every export as a plugin.

// The lookup of automaton-install's hook commands, word for word.
const LOOKUP = "h=\"$(command -v \"$0\")\" || h=\"$HOME\"/.automaton/bin/\"$0\"; if [ ! -x \"$h\" ]; then printf \"ERROR: %s is not installed on this machine (not on PATH, not in ~/.automaton/bin). Install it: pip install automaton-rules, then automaton-install --project . in this project (automaton-rules: docs/adopting.md)\\n\" \"$0\" >&2; exit 2; fi; exec 3>&1; e=\"$(\"$h\" \"$@\" 2>&1 >&3 3>&-)\" 2>/dev/null; s=\"$?\"; exec 3>&-; case \"$s\" in 0|2) [ -z \"$e\" ] || printf \"%s\\n\" \"$e\" >&2; exit \"$s\";; esac; if [ \"$s\" -gt 128 ]; then c=\"was stopped by signal $((s - 128))\"; elif [ \"$s\" -ge 126 ]; then c=\"could not run (exit status $s)\"; else c=\"failed (exit status $s)\"; fi; l=\"$(printf \"%s\\n\" \"$e\" | grep . | tail -n 1)\"; printf \"ERROR: %s %s%s; refused, since a hook that fails must not let the action through.\\n\" \"$0\" \"$c\" \"${l:+: $l}\" >&2; exit 2";

// Runs the hook as the JSON configurations of the other harnesses do, on one event.
async function ask($, event) {
  const input = new Response(JSON.stringify(event));
  return await $`sh -c ${LOOKUP} automaton-hook --harness opencode < ${input}`.nothrow().quiet();
}

// The adapter's JSON answer, or {} when it printed none.
function parsed(text) {
  try {
    return JSON.parse(text) || {};
  } catch {
    return {};
  }
}

// The user's own words in a message: its text parts, leaving out those opencode added.
function typed(parts) {
  return parts
    .filter((part) => part && part.type === "text" && !part.synthetic)
    .map((part) => part.text)
    .join("\n");
}

// A subagent's session has a parent: its "user" messages were written by an agent.
async function childSession(client, id) {
  try {
    const session = await client.session.get({ path: { id } });
    return Boolean(session && session.data && session.data.parentID);
  } catch {
    return true; // cannot tell: no approval rather than an agent's
  }
}

export const AutomatonGuard = async ({ $, directory, client }) => {
  const context = async (source) => {
    const result = await ask($, { hook_event_name: "SessionStart", source, cwd: directory });
    try {
      return JSON.parse(result.stdout.toString()).additionalContext || "";
    } catch {
      return "";
    }
  };
  const continued = new Set(); // sessions this plugin made carry on after going idle
  return {
    event: async ({ event }) => {
      if (!event || event.type !== "session.idle") return;
      const id = event.properties && event.properties.sessionID;
      if (!id || (await childSession(client, id))) return;
      const again = continued.delete(id);
      let answer;
      try {
        const stop = { hook_event_name: "Stop", session_id: id, cwd: directory, stop_hook_active: again };
        answer = JSON.parse((await ask($, stop)).stdout.toString());
      } catch {
        return; // no decision, or the hook failed: the agent stays stopped
      }
      if (answer.decision !== "block" || !answer.reason) return;
      continued.add(id);
      await client.session.prompt({
        path: { id },
        body: { parts: [{ type: "text", text: answer.reason }] },
      });
    },
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
      // A shell command to run inside the phase's sandbox: changed in place, since opencode
      // runs the very object it handed to this hook.
      const rewrite = parsed(result.stdout.toString()).rewrite;
      if (rewrite && output && output.args) Object.assign(output.args, rewrite);
    },
    "chat.message": async (input, output) => {
      const prompt = typed((output && output.parts) || []);
      // Only an approval is our business; `opencode run "approve t1"` wraps the words in quotes.
      if (!/^\s*["']?\/?approved?\b/i.test(prompt)) return;
      if (await childSession(client, input.sessionID)) return;
      const event = {
        hook_event_name: "UserPromptSubmit",
        session_id: input.sessionID,
        cwd: directory,
        prompt,
      };
      let answer;
      try {
        answer = JSON.parse((await ask($, event)).stdout.toString());
      } catch {
        return; // a prompt hook fails open: the message goes on, nothing is approved
      }
      if (!answer.additionalContext) return;
      // Changed in place: opencode saves this very array after the hook returns.
      output.parts.push({
        id: `prt_automaton${Date.now().toString(36)}`,
        sessionID: input.sessionID,
        messageID: output.message.id,
        type: "text",
        text: answer.additionalContext,
        synthetic: true,
      });
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
