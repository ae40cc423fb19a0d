"""An interactive tool's questions, asked on the dashboard page that runs it.

A call from the page (live.py) that asks the user (`ELICIT`, runner/interactive.py) gets
a form on the page: the question's `requestedSchema` made into fields (catalog.py's
`form_fields`), rendered by the server with every value escaped, sent on the call's
event stream with an unguessable id. The page answers with
`POST /dashboard/questions/<id>` (accept with the fields, decline, or cancel), and the
script reads the answer as it would a client's `ElicitResult`.

Only the session that started the call may answer (its `owner`), with its CSRF token
like every other change. A question lives as long as the call waits for it: the call's
end (its tool's timeout, as on the protocol path; Stop; the tab closed) ends it, and an
answer after that is refused. Sampling and roots requests are answered as by a client
without those capabilities: the page has no model and no roots.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from pydantic import ValidationError

from toolkiln.render import render_page
from toolkiln.serve.dashboard.catalog import form_fields

TEMPLATES = Path(__file__).parent / "templates"
# Questions of one line (`INPUT` with many keys) beyond these are answered with an error.
MAX_QUESTIONS = 8


class QuestionRefused(Exception):
    """An answer that is not taken: `status` is the HTTP status to answer it with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Question:
    id: str
    owner: str
    schema: dict[str, Any]
    answered: anyio.Event = field(default_factory=anyio.Event)
    answer: dict[str, Any] | None = None


class Questions:
    """The questions waiting for an answer on a page, by id."""

    def __init__(self) -> None:
        self._open: dict[str, Question] = {}

    @contextlib.contextmanager
    def opened(self, owner: str, schema: dict[str, Any]) -> Iterator[Question]:
        """A new question of `owner`'s, open until the block ends (answered, or the call over)."""
        question = Question(secrets.token_urlsafe(32), owner, schema)
        self._open[question.id] = question
        try:
            yield question
        finally:
            self._open.pop(question.id, None)

    def answer(self, question_id: str, owner: str, body: Any) -> None:
        """Hand the page's answer to the waiting call; `QuestionRefused` says why not."""
        question = self._open.get(question_id)
        if question is None:
            raise QuestionRefused(404, "This question is no longer open (answered, or its call ended).")
        if not secrets.compare_digest(question.owner.encode(), owner.encode()):
            raise QuestionRefused(403, "This question belongs to another dashboard session.")
        result = _result(body, question.schema)
        self._open.pop(question_id, None)  # one answer only
        question.answer = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        question.answered.set()


def _result(body: Any, schema: Mapping[str, Any]) -> types.ElicitResult:
    """The answer as an `ElicitResult` (what an MCP client sends), checked against the schema."""
    if not isinstance(body, dict) or body.get("action") not in ("accept", "decline", "cancel"):
        raise QuestionRefused(400, 'send {"action": "accept", "content": {...}}, or "decline" or "cancel"')
    if body["action"] != "accept":
        return types.ElicitResult(action=body["action"])
    content = body.get("content", {})
    try:
        result = types.ElicitResult(action="accept", content=content)
    except ValidationError:
        raise QuestionRefused(400, "content: an object of strings, numbers, booleans and lists") from None
    problems = _problems(schema, content)
    if problems:
        raise QuestionRefused(400, "; ".join(problems))
    return result


def _problems(schema: Mapping[str, Any], content: Mapping[str, Any]) -> list[str]:
    from jsonschema import Draft202012Validator  # on the first answer: ~60 ms of every start else
    from jsonschema.exceptions import SchemaError

    try:
        validator = Draft202012Validator(dict(schema))
        errors = sorted(validator.iter_errors(dict(content)), key=lambda e: [str(p) for p in e.path])
    except SchemaError:  # the script's schema is no JSON Schema: nothing to check against
        return []
    return [f"{'.'.join(str(p) for p in error.path) or 'answer'}: {error.message}" for error in errors]


def question_of(request: Mapping[str, Any]) -> types.ElicitRequestFormParams | str:
    """The form a script's request asks for, or why the page cannot answer it."""
    method = request.get("method")
    if method != "elicitation/create":
        return f"the dashboard cannot answer {method} (it has no model and no roots); ask from an MCP client"
    try:
        params = types.ElicitRequest.model_validate({"method": method, "params": request.get("params") or {}})
    except ValidationError as error:
        return f"elicitation/create is malformed: {error}"
    if not isinstance(params.params, types.ElicitRequestFormParams):
        return "the dashboard answers form elicitations only, not URL ones; ask from an MCP client"
    return params.params


def render_question(question: Question, params: types.ElicitRequestFormParams) -> str:
    """The question's form, as HTML whose every value (message, names, titles) is escaped."""
    fields = form_fields(question.schema, order=list(question.schema.get("properties") or {}))
    values = {"id": question.id, "message": params.message, "fields": fields}
    return render_page(TEMPLATES, "_question.html", values)
