"""Example event plugin: run a command when a task reaches an approval gate.

A task at `PHASE:awaiting_approval` waits for a person; this plugin tells them, through
whatever a command line can do: a desktop notification (`notify-send`, `osascript`), a
chat webhook (`curl`), a script of your own.

Turn it on by listing this file in `plugins` (automaton.toml) and setting
`AUTOMATON_NOTIFY_COMMAND` to the command and its arguments:

    export AUTOMATON_NOTIFY_COMMAND='notify-send "Approval needed"'

For a chat channel, point it at a script that posts to the channel's incoming webhook
(docs/board.md shows one for Slack, Mattermost and Discord):

    export AUTOMATON_NOTIFY_COMMAND=~/bin/notify-chat CHAT_WEBHOOK_URL=https://...

The value is split into words the way a shell splits them (`shlex.split`) but never run
by a shell: the command gets the task's name and its state appended as two arguments,
and `AUTOMATON_TASK`, `AUTOMATON_STATE` and `AUTOMATON_PROJECT` in its environment, so a
task's name cannot inject anything. Unset or empty, the plugin does nothing. A command
that cannot be run, exits with a status other than 0 or runs past `TIMEOUT_SECONDS` is
reported as a `WARNING:` of the command that moved the task, and the move stands.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess

from automaton_rules import hookimpl

TYPE_CHECKING = False
if TYPE_CHECKING:  # the edit-time hooks, which load listed plugins, need no Event
    from automaton_rules import Event

COMMAND_VARIABLE = "AUTOMATON_NOTIFY_COMMAND"
TIMEOUT_SECONDS = 30


@hookimpl
def automaton_event(event: Event) -> None:
    """On a task reaching `PHASE:awaiting_approval`, run the configured command."""
    if not event.awaiting_approval or event.task is None or event.target is None:
        return
    command = shlex.split(os.environ.get(COMMAND_VARIABLE, ""))
    if not command:
        return
    environment = {
        **os.environ,
        "AUTOMATON_TASK": event.task,
        "AUTOMATON_STATE": event.target,
        "AUTOMATON_PROJECT": str(event.project),
    }
    # In a session of its own, so that a timeout (ours or the plugin time limit) stops
    # what the command started too: a shell's `sleep` would outlive a killed shell.
    with subprocess.Popen(
        [*command, event.task, event.target],
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as done:
        try:
            _, stderr = done.communicate(timeout=TIMEOUT_SECONDS)
        except BaseException:
            _stop(done)
            raise
    if done.returncode != 0:
        said = stderr.strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(f"{command[0]} exited with status {done.returncode}: {said[0]}")


def _stop(process: subprocess.Popen[str]) -> None:
    """Kill the command and everything it started."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # no process groups here, or already gone
        process.kill()
