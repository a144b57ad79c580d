"""JSON-RPC 2.0 as Betfair's API-NG speaks it: envelopes, batches and APINGException errors.

An :class:`Endpoint` is one URL (``/exchange/betting/json-rpc/v1`` or
``/exchange/account/json-rpc/v1``) with its table of methods named as API-NG
names them (``SportsAPING/v1.0/placeOrders``). It parses the body, checks the
envelope, calls the method and wraps the answer; it never raises. A method
refuses a call by raising :class:`~exchange.server.errors.ApiError`, which
becomes error ``-32099`` with ``ANGX-00NN`` as the message (``AANGX-00NN``, the
Account API's own numbers, for an ``AccountAPINGException``) and the exception in
``data``, as Betfair sends it.

A body that is a JSON array is a batch: its calls run one after another, in
order, and the answer is the array of their answers; a batch refused as a
whole (a bad session, more than :data:`MAX_BATCH` calls) is answered with the
error once per call, so a batch always gets an array (JSON-RPC 2.0: only a body
that is not JSON or an empty array gets a single answer). The calls of one body
share one budget of records and bytes, and each counts against its account's
call rate (:mod:`exchange.server.limits`): past them a call is refused with
``TOO_MUCH_DATA`` or ``TOO_MANY_REQUESTS``. A parameter the method does not
define (:mod:`exchange.server.api_params`) refuses the call with
``INVALID_INPUT_DATA`` before the method runs.

The same methods are served over REST, as Betfair serves them beside JSON-RPC
(``POST /exchange/betting/rest/v1.0/<method>/`` with the params object as the
body): :meth:`Endpoint.handle_rest` runs a call through the same dispatch and
limits, answers the result alone, and a refusal as Betfair's REST fault, HTTP
400 with ``faultcode``, ``faultstring`` (``ANGX-00NN``) and ``detail``
(:meth:`Endpoint.rest_fault`).

>>> import asyncio
>>> async def echo(session: object, params: dict) -> dict:
...     return {"seen": params["x"]}
>>> endpoint = Endpoint("SportsAPING", "APINGException", {"SportsAPING/v1.0/echo": echo})
>>> body = b'{"jsonrpc":"2.0","method":"SportsAPING/v1.0/echo","params":{"x":1},"id":7}'
>>> out = asyncio.run(endpoint.handle(body, None))
>>> jsoncodec.loads(out)
{'jsonrpc': '2.0', 'result': {'seen': 1}, 'id': 7}
>>> jsoncodec.loads(asyncio.run(endpoint.handle(b'{"method":"SportsAPING/v1.0/nope","id":1}', None)))["error"]["code"]
-32601
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any

from exchange.server import jsoncodec
from exchange.server.api_params import unknown_parameter
from exchange.server.errors import ApiError, ApingCode, invalid_input
from exchange.server.limits import AccountGate, Budget, Limits, too_much, use_budget
from exchange.server.params import INT_MAX, INT_MIN

log = logging.getLogger(__name__)

Params = Mapping[str, Any]
Method = Callable[[Any, Params], Awaitable[Any]]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
APING_ERROR = -32099

MAX_BATCH = 50
ACCOUNT_EXCEPTION = "AccountAPINGException"  # the Account API's: its codes are numbered AANGX-00NN
HEARTBEAT = "HeartbeatAPING"  # the Heartbeat API: its APINGException's codes are numbered HBT-00NN
#: Codes that are the server's trouble, not the request's: a REST fault says ``Server`` for them.
_SERVER_FAULTS = frozenset({ApingCode.UNEXPECTED_ERROR, ApingCode.SERVICE_BUSY, ApingCode.TIMEOUT_ERROR,
                            ApingCode.SERVICE_UNAVAILABLE})


def error_object(code: int, message: str, data: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        out["data"] = data
    return out


def aping_error(err: ApiError, exception_name: str, service: str = "") -> dict[str, Any]:
    """The ``error`` member for an APINGException, shaped as Betfair sends it; its message is the code as the
    service numbers it (``ANGX-00NN``; the Account API's ``AANGX-00NN``, the Heartbeat API's ``HBT-00NN``)."""
    detail = {"requestUUID": str(uuid.uuid4()), "errorCode": str(err.code), "errorDetails": err.details}
    message = err.aangx if exception_name == ACCOUNT_EXCEPTION else err.hbt if service == HEARTBEAT else err.angx
    return error_object(APING_ERROR, message, {exception_name: detail, "exceptionname": exception_name})


def envelope_error(request_id: Any, error: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "error": error, "id": request_id}


def _valid_id(value: Any) -> bool:
    """None, a string, or a whole number of 64 bits (:data:`~exchange.server.params.INT_MIN` to ``INT_MAX``: a
    larger one is a float to one JSON parser, an int to another, refused whichever read it)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return INT_MIN <= value <= INT_MAX
    return value is None or isinstance(value, str)


def _id_of(request: Any) -> Any:
    """A call's id if it has a valid one (else None: an error about a call with no usable id)."""
    return request.get("id") if isinstance(request, dict) and _valid_id(request.get("id")) else None


class Endpoint:
    """One JSON-RPC URL: a service prefix, the name its exceptions carry, and its methods."""

    def __init__(self, service: str, exception_name: str, methods: Mapping[str, Method], *,
                 limits: Limits | None = None, gate: AccountGate | None = None,
                 writes: Collection[str] = ()) -> None:
        self.service = service
        self.exception_name = exception_name
        self.methods = dict(methods)
        #: The methods that change state: their answers are never refused for their size (see :class:`Budget`).
        self.writes = frozenset(writes)
        self.limits = limits or (gate.limits if gate is not None else Limits())
        self.gate = gate

    async def handle(self, body: bytes, session: Any) -> bytes:
        """The response body for a request body, calling methods with ``session``.

        The calls of one body share a :class:`~exchange.server.limits.Budget`;
        each call takes a token from the account's rate (``gate``), and an answer
        past the budget's bytes is replaced by a ``TOO_MUCH_DATA`` error.
        """
        try:
            request = jsoncodec.loads_client(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return _dump(envelope_error(None, error_object(PARSE_ERROR, f"Parse error: {jsoncodec.not_json(exc)}")))
        budget = Budget(self.limits, self.gate, getattr(session, "account", ""))
        use_budget(budget)
        if isinstance(request, list):
            if not request:
                return _dump(envelope_error(None, error_object(INVALID_REQUEST, "Invalid Request: empty batch")))
            if len(request) > MAX_BATCH:
                err = ApiError(ApingCode.TOO_MUCH_DATA, f"a batch holds at most {MAX_BATCH} calls, not {len(request)}")
                return self._refused(request, err)
            return b"[" + b",".join([await self._answer(item, session, budget) for item in request]) + b"]"
        return await self._answer(request, session, budget)

    def changes_state(self, method: object) -> bool:
        """Whether a call of ``method`` (as the client named it: anything JSON holds) may have changed state, so
        its answer is never refused for its size."""
        return isinstance(method, str) and method in self.writes

    def error(self, err: ApiError) -> dict[str, Any]:
        """The ``error`` member of a JSON-RPC answer refusing a call with ``err``, as this service words it."""
        return aping_error(err, self.exception_name, self.service)

    def refuse(self, body: bytes, err: ApiError) -> bytes:
        """The answer to a request refused as a whole (no app key, a bad session, the server stopping).

        A batch is answered as any batch is, an array: the error once per call, with the call's id.
        """
        try:
            request = jsoncodec.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            request = None
        return self._refused(request, err)

    def _refused(self, request: Any, err: ApiError) -> bytes:
        error = self.error(err)
        if isinstance(request, list) and request:
            return _dump([envelope_error(_id_of(item), error) for item in request])
        return _dump(envelope_error(_id_of(request), error))

    async def _answer(self, request: Any, session: Any, budget: Budget) -> bytes:
        """One call's answer as JSON bytes, within the account's rate and the request's byte budget."""
        refused = self.gate.admit(budget.account) if self.gate is not None and budget.account else None
        if refused is not None:
            return _dump(envelope_error(_id_of(request), self.error(refused)))
        answer = await self.call(request, session)
        out = _dump(answer)
        method = request.get("method") if isinstance(request, dict) else None
        problem = budget.charge_bytes(len(out), changed_state=self.changes_state(method))
        if problem is not None:
            return _dump(envelope_error(answer.get("id"), self.error(too_much(problem))))
        return out

    async def call(self, request: Any, session: Any) -> dict[str, Any]:
        """One call: its response object (result or error), never an exception."""
        if not isinstance(request, dict):
            return envelope_error(None, error_object(INVALID_REQUEST, "Invalid Request: expected a JSON object"))
        request_id = request.get("id")
        if not _valid_id(request_id):
            return envelope_error(None, error_object(INVALID_REQUEST, "Invalid Request: id must be a string or a "
                                                                      "whole number of 64 bits"))
        version = request.get("jsonrpc", "2.0")
        if version != "2.0":
            return envelope_error(request_id, error_object(INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"'))
        name = request.get("method")
        if not isinstance(name, str):
            return envelope_error(request_id, error_object(INVALID_REQUEST, "Invalid Request: method must be a string"))
        method = self.methods.get(name)
        if method is None:
            known = ", ".join(sorted(self.methods))
            message = f"Method not found: {name[:100]!r}; this endpoint has {known}"
            return envelope_error(request_id, error_object(METHOD_NOT_FOUND, message))
        params = request.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            message = "Invalid params: params must be a JSON object of named parameters"
            return envelope_error(request_id, error_object(INVALID_PARAMS, message))
        try:
            result = await self._run(name, method, params, session)
        except ApiError as err:
            return envelope_error(request_id, self.error(err))
        return {"jsonrpc": "2.0", "result": result, "id": request_id}

    async def _run(self, name: str, method: Method, params: Params, session: Any) -> Any:
        """One method's result; a refusal raises :class:`ApiError` (a bug too, as ``UNEXPECTED_ERROR``, logged)."""
        problem = unknown_parameter(name.rsplit("/", 1)[-1], params)  # a misspelt name must not change the call
        if problem is not None:
            raise invalid_input(problem)
        try:
            return await method(session, params)
        except ApiError:
            raise
        except Exception:
            log.exception("unexpected error in %s", name)
            raise ApiError(ApingCode.UNEXPECTED_ERROR, "an unexpected internal error occurred; it was logged") from None

    # --- REST: the same methods, the params object as the body --------------------------------------------

    def has_method(self, name: str) -> bool:
        """Whether ``name`` (without the service prefix: ``listMarketBook``) is one of this endpoint's methods."""
        return self._qualified(name) in self.methods

    def known_methods(self) -> str:
        return ", ".join(sorted(m.rsplit("/", 1)[-1] for m in self.methods))

    def _qualified(self, name: str) -> str:
        return f"{self.service}/v1.0/{name}"

    async def handle_rest(self, name: str, body: bytes, session: Any) -> tuple[int, bytes]:
        """``(HTTP status, body)`` of a REST call of method ``name`` (one :meth:`has_method` knows) whose request
        body is its params object (an empty body: no params): 200 with the result alone, or a fault
        (:meth:`rest_fault`). The call is run as a JSON-RPC call of the method is, within the same limits.
        """
        try:
            params = jsoncodec.loads_client(body) if body.strip() else {}
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return self.rest_fault(invalid_input(jsoncodec.not_json(exc)))
        if not isinstance(params, dict):
            return self.rest_fault(invalid_input("the body must be a JSON object of named parameters"))
        if isinstance(params.get("params"), dict) and params.keys() & {"jsonrpc", "method", "id"}:
            # Betfair ignores the envelope's keys and runs the call with no params: a cancelOrders so sent cancels
            # every bet. Refused here, saying what to send.
            return self.rest_fault(invalid_input("a REST body is the method's params object itself, not a JSON-RPC "
                                                 "envelope: send what is under \"params\" (or post the envelope to "
                                                 "the json-rpc endpoint)"))
        budget = Budget(self.limits, self.gate, getattr(session, "account", ""))
        use_budget(budget)
        refused = self.gate.admit(budget.account) if self.gate is not None and budget.account else None
        if refused is not None:
            return self.rest_fault(refused)
        qualified = self._qualified(name)
        try:
            result = await self._run(qualified, self.methods[qualified], params, session)
        except ApiError as err:
            return self.rest_fault(err)
        out = _dump(result)
        problem = budget.charge_bytes(len(out), changed_state=self.changes_state(qualified))
        return self.rest_fault(too_much(problem)) if problem is not None else (200, out)

    def rest_fault(self, err: ApiError) -> tuple[int, bytes]:
        """A refused REST call as Betfair answers it: ``faultcode`` (``Client``, or ``Server`` for the server's own
        trouble), ``faultstring`` the ``ANGX-00NN`` code and ``detail`` the exception, with HTTP 400 (the server's
        trouble: its own status, 500 or 503)."""
        error = self.error(err)
        server = err.code in _SERVER_FAULTS
        fault = {"faultcode": "Server" if server else "Client", "faultstring": error["message"],
                 "detail": error["data"]}
        return (err.http_status if server else 400), _dump(fault)


def _dump(value: Any) -> bytes:
    return jsoncodec.dumps(value)
