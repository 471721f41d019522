"""The lab's scripted model, without a harness (part of the default suite, milliseconds):
each API answers the script's reply in its own streaming shape, and logs the request."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from harnesses.model_server import DONE, ModelServer, Text, Tool

CALL = Tool("bash", {"command": "ls"})
TOOLS = [{"type": "function", "function": {"name": "bash"}}]


def _post(url: str, body: dict[str, Any]) -> str:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read().decode()


def _events(stream: str) -> list[Any]:
    data = [line[6:] for line in stream.splitlines() if line.startswith("data: ")]
    return [json.loads(d) for d in data if d != "[DONE]"]


def test_chat_completions_streams_a_tool_call_then_text() -> None:
    with ModelServer([CALL, Text("bye")]) as server:
        url = f"{server.url}/v1/chat/completions"
        first = _events(_post(url, {"stream": True, "tools": TOOLS, "messages": []}))
        second = _events(_post(url, {"stream": True, "tools": TOOLS, "messages": []}))
        third = _events(_post(url, {"stream": True, "messages": []}))  # no tools: not the agent
    call = first[0]["choices"][0]["delta"]["tool_calls"][0]["function"]
    assert (call["name"], json.loads(call["arguments"])) == ("bash", {"command": "ls"})
    assert first[1]["choices"][0]["finish_reason"] == "tool_calls"
    assert second[0]["choices"][0]["delta"]["content"] == "bye"
    assert third[0]["choices"][0]["delta"]["content"] == DONE
    assert [r.reply for r in server.requests] == [CALL, Text("bye"), Text(DONE)]


def test_the_messages_api_streams_a_tool_use_block() -> None:
    with ModelServer([CALL]) as server:
        body = {"stream": True, "tools": [{"name": "bash"}], "messages": []}
        events = _events(_post(f"{server.url}/v1/messages?beta=true", body))
    kinds = [e["type"] for e in events]
    assert kinds == ["message_start", "content_block_start", "content_block_delta",
                     "content_block_stop", "message_delta", "message_stop"]  # fmt: skip
    assert events[1]["content_block"]["name"] == "bash"
    assert json.loads(events[2]["delta"]["partial_json"]) == {"command": "ls"}
    assert events[4]["delta"]["stop_reason"] == "tool_use"


def test_the_responses_api_streams_a_function_call() -> None:
    with ModelServer([CALL]) as server:
        body = {"stream": True, "tools": [{"type": "function", "name": "bash"}], "input": []}
        events = _events(_post(f"{server.url}/v1/responses", body))
    assert events[-1]["type"] == "response.completed"
    [item] = events[-1]["response"]["output"]
    assert (item["type"], item["name"], item["call_id"]) == ("function_call", "bash", "call_1")


def test_gemini_gets_its_call_and_its_router_the_json_it_asks_for() -> None:
    schema = {"type": "OBJECT", "properties": {"score": {"type": "INTEGER"},
              "choice": {"type": "STRING", "enum": ["flash", "pro"]}}}  # fmt: skip
    with ModelServer([CALL]) as server:
        router = json.loads(_post(
            f"{server.url}/v1beta/models/m:generateContent",
            {"contents": [], "generationConfig": {"responseJsonSchema": schema}},
        ))  # fmt: skip
        body = {"contents": [], "tools": [{"functionDeclarations": [{"name": "bash"}]}]}
        stream = _events(_post(f"{server.url}/v1beta/models/m:streamGenerateContent?alt=sse", body))
    answer = router["candidates"][0]["content"]["parts"][0]["text"]
    assert json.loads(answer) == {"score": 1, "choice": "flash"}
    part = stream[0]["candidates"][0]["content"]["parts"][0]
    assert part == {"functionCall": {"name": "bash", "args": {"command": "ls"}}}
    assert server.requests[1].tool_names == ["bash"]
