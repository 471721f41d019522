"""A scripted model on 127.0.0.1 for the harness lab: just enough of the Anthropic Messages
API, OpenAI Chat Completions, the OpenAI Responses API and the Gemini API (each streaming)
to run a turn or two of a real harness.

The script is a list of replies, each a tool call or a text. Each request that offers the
model tools (the agent's own turn) takes the next reply; once the script is spent, and for
any request without tools (a title, a quota probe, a router), the answer is the text
"done". Every request is logged whole, since what a harness sends back — the tool result,
the hook's reason — is the fact a lab test reads.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

DONE = "done"


@dataclass(frozen=True)
class Tool:
    """The model asks for one tool call."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Text:
    """The model answers with text and ends its turn."""

    text: str


Reply = Union[Tool, Text]


@dataclass
class Request:
    """One request a harness sent: its path and its JSON body."""

    method: str
    path: str
    body: Any
    reply: Reply | None = None

    @property
    def offers_tools(self) -> bool:
        """Whether this is the agent's own turn (it lists the tools the model may call)."""
        return isinstance(self.body, dict) and bool(self.body.get("tools"))

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools offered, in either API's shape."""
        tools = self.body.get("tools") or [] if isinstance(self.body, dict) else []
        names = []
        for tool in tools:
            declared = tool.get("functionDeclarations") or [tool.get("function") or tool]
            names += [str(d.get("name", "")) for d in declared]
        return names


@dataclass
class Script:
    """The replies still to give, and every request seen."""

    replies: list[Reply]
    requests: list[Request] = field(default_factory=list)
    lock: threading.Condition = field(default_factory=threading.Condition)

    def next(self, request: Request) -> Reply:
        """The reply to a request: the script's next one on the agent's turn; JSON of the
        shape asked for (Gemini CLI's router); else text."""
        with self.lock:
            self.requests.append(request)
            self.lock.notify_all()
            schema = _json_schema(request.body)
            if request.offers_tools and self.replies:
                request.reply = self.replies.pop(0)
            elif schema is not None:
                request.reply = Text(json.dumps(_sample(schema)))
            else:
                request.reply = Text(DONE)
            return request.reply


def _json_schema(body: Any) -> dict[str, Any] | None:
    """The JSON schema a request wants its answer in (Gemini's `responseJsonSchema`)."""
    config = body.get("generationConfig") if isinstance(body, dict) else None
    schema = config.get("responseJsonSchema") if isinstance(config, dict) else None
    return schema if isinstance(schema, dict) else None


def _sample(schema: dict[str, Any]) -> Any:
    """A value of the schema's shape: the first choice of an enum, 1, true, "lab"."""
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object":
        return {key: _sample(sub) for key, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [_sample(schema.get("items") or {})]
    return {"integer": 1, "number": 1, "boolean": True}.get(kind, "lab")


def _sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {body}\n\n".encode()


def anthropic_events(reply: Reply, model: str, n: int) -> Iterator[bytes]:
    """A Messages API stream: message_start, one content block, message_delta, stop."""
    usage = {"input_tokens": 10, "output_tokens": 1}
    start = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": model}
    start |= {"content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
    yield _sse("message_start", {"type": "message_start", "message": start})
    if isinstance(reply, Tool):
        block = {"type": "tool_use", "id": f"toolu_{n}", "name": reply.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.arguments)}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": reply.text}
        stop = "end_turn"
    opening = {"type": "content_block_start", "index": 0, "content_block": block}
    yield _sse("content_block_start", opening)
    yield _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
    yield _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
    ending = {"stop_reason": stop, "stop_sequence": None}
    yield _sse("message_delta", {"type": "message_delta", "delta": ending, "usage": usage})
    yield _sse("message_stop", {"type": "message_stop"})


def anthropic_message(reply: Reply, model: str, n: int) -> dict[str, Any]:
    """The same reply as one Messages API response, for a request that does not stream."""
    if isinstance(reply, Tool):
        use = {"type": "tool_use", "id": f"toolu_{n}", "name": reply.name}
        content = [use | {"input": reply.arguments}]
        stop = "tool_use"
    else:
        content, stop = [{"type": "text", "text": reply.text}], "end_turn"
    return {
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }  # fmt: skip


def chat_chunks(reply: Reply, model: str, n: int) -> Iterator[bytes]:
    """A Chat Completions stream: the delta, the finish reason, the usage, [DONE]."""
    head = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0, "model": model}
    if isinstance(reply, Tool):
        function = {"name": reply.name, "arguments": json.dumps(reply.arguments)}
        call = {"index": 0, "id": f"call_{n}", "type": "function", "function": function}
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    else:
        delta, finish = {"role": "assistant", "content": reply.text}, "stop"
    yield _sse(None, head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    yield _sse(None, head | {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    usage = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
    yield _sse(None, head | {"choices": [], "usage": usage})
    yield _sse(None, "[DONE]")


def chat_completion(reply: Reply, model: str, n: int) -> dict[str, Any]:
    """The same reply as one Chat Completions response, for a request that does not stream."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if isinstance(reply, Tool):
        function = {"name": reply.name, "arguments": json.dumps(reply.arguments)}
        message["tool_calls"] = [{"id": f"call_{n}", "type": "function", "function": function}]
        finish = "tool_calls"
    else:
        message["content"], finish = reply.text, "stop"
    return {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
    }  # fmt: skip


def responses_events(reply: Reply, model: str, n: int) -> Iterator[bytes]:
    """An OpenAI Responses stream: created, one output item added and done (a function
    call, or a message with its text delta), completed with the usage."""
    if isinstance(reply, Tool):
        item: dict[str, Any] = {
            "type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
            "name": reply.name, "arguments": json.dumps(reply.arguments), "status": "completed",
        }  # fmt: skip
    else:
        part = {"type": "output_text", "text": reply.text, "annotations": []}
        item = {"type": "message", "id": f"msg_{n}", "role": "assistant"}
        item |= {"status": "completed", "content": [part]}
    response = {"id": f"resp_{n}", "object": "response", "created_at": 0, "model": model}
    yield _sse("response.created", {"type": "response.created", "response": response})
    added = {"type": "response.output_item.added", "output_index": 0, "item": item}
    yield _sse("response.output_item.added", added)
    if isinstance(reply, Text):
        delta = {"type": "response.output_text.delta", "item_id": item["id"]}
        delta |= {"output_index": 0, "content_index": 0, "delta": reply.text}
        yield _sse("response.output_text.delta", delta)
    done = {"type": "response.output_item.done", "output_index": 0, "item": item}
    yield _sse("response.output_item.done", done)
    usage = {"input_tokens": 10, "output_tokens": 1, "total_tokens": 11}
    usage |= {"input_tokens_details": {"cached_tokens": 0}}
    usage |= {"output_tokens_details": {"reasoning_tokens": 0}}
    finished = response | {"status": "completed", "output": [item], "usage": usage}
    yield _sse("response.completed", {"type": "response.completed", "response": finished})


def gemini_response(reply: Reply, model: str) -> dict[str, Any]:
    """One Gemini API answer (`generateContent`, or a chunk of its stream): a function
    call or a text part, finished."""
    if isinstance(reply, Tool):
        part: dict[str, Any] = {"functionCall": {"name": reply.name, "args": reply.arguments}}
    else:
        part = {"text": reply.text}
    candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}
    return {"candidates": [candidate | {"index": 0}], "usageMetadata": usage, "modelVersion": model}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the script's log is the record."""

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode(errors="replace")

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, chunks: Iterator[bytes]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk)
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        script = self.server.script
        script.next(Request("GET", self.path, None))
        if self.path.rstrip("/").endswith("/models"):
            model = {"id": self.server.model, "object": "model", "created": 0, "owned_by": "lab"}
            self._send(200, {"object": "list", "data": [model]})
        else:
            self._send(404, {"error": {"message": f"no {self.path} here"}})

    def do_POST(self) -> None:
        request = Request("POST", self.path, self._body())
        reply = self.server.script.next(request)
        body = request.body if isinstance(request.body, dict) else {}
        model = body.get("model") or self.server.model
        n = len(self.server.script.requests)
        path = self.path.split("?")[0]
        if path.endswith(":streamGenerateContent"):
            self._stream(iter([_sse(None, gemini_response(reply, model))]))
        elif path.endswith(":generateContent"):
            self._send(200, gemini_response(reply, model))
        elif path.endswith(":countTokens"):
            self._send(200, {"totalTokens": 10})
        elif path.endswith("/messages/count_tokens"):
            self._send(200, {"input_tokens": 10})
        elif path.endswith("/messages"):
            if body.get("stream"):
                self._stream(anthropic_events(reply, model, n))
            else:
                self._send(200, anthropic_message(reply, model, n))
        elif path.endswith("/responses"):
            self._stream(responses_events(reply, model, n))
        elif path.endswith("/chat/completions"):
            if body.get("stream"):
                self._stream(chat_chunks(reply, model, n))
            else:
                self._send(200, chat_completion(reply, model, n))
        else:
            self._send(404, {"error": {"message": f"no {self.path} here"}})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    script: Script
    model: str


class ModelServer:
    """The scripted model, serving in a thread on 127.0.0.1 until closed."""

    def __init__(self, replies: list[Reply], model: str = "lab-model") -> None:
        self.script = Script(list(replies))
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.script = self.script
        self._server.model = model
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base address, without a path."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def requests(self) -> list[Request]:
        """Every request seen so far, in order."""
        with self.script.lock:
            return list(self.script.requests)

    def wait_for_turns(self, turns: int, timeout: float) -> bool:
        """Wait until the agent's turn has come `turns` times (requests offering tools), for
        a harness that goes on after the command that started it ended; False when it did
        not come within `timeout` seconds."""
        with self.script.lock:
            return self.script.lock.wait_for(
                lambda: sum(r.offers_tools for r in self.script.requests) >= turns, timeout
            )

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
