"""The OpenAPI 3.1 document for the server's routes, served at ``/openapi.json``.

JSON-RPC endpoints are described as one POST each, with the envelope and the
method names; the method parameters and results are API-NG's own (see the
README's "HTTP API" section).

>>> doc = document()
>>> sorted(doc["paths"])[:4]
['/', '/api/certlogin', '/api/keepAlive', '/api/login']
"""

from __future__ import annotations

from typing import Any

BETTING_METHODS = tuple(f"SportsAPING/v1.0/{name}" for name in (
    "placeOrders", "cancelOrders", "replaceOrders", "updateOrders", "listCurrentOrders", "listClearedOrders",
    "listMarketBook", "listRunnerBook", "listMarketCatalogue", "listMarketProfitAndLoss", "listEventTypes",
    "listEvents", "listCompetitions", "listMarketTypes", "listCountries", "listVenues", "listTimeRanges",
))
ACCOUNT_METHODS = tuple(f"AccountAPING/v1.0/{name}" for name in (
    "getAccountFunds", "getAccountDetails", "getAccountStatement", "listCurrencyRates",
))
HEARTBEAT_METHODS = ("HeartbeatAPING/v1.0/heartbeat",)

_AUTH_HEADERS = [
    {"name": "X-Application", "in": "header", "required": True, "schema": {"type": "string"}},
    {"name": "X-Authentication", "in": "header", "required": True, "schema": {"type": "string"}},
]

_IDENTITY_ANSWER = {
    "type": "object",
    "required": ["token", "product", "status", "error"],
    "properties": {
        "token": {"type": "string"},
        "product": {"type": "string", "description": "the application key"},
        "status": {"enum": ["SUCCESS", "FAIL"]},
        "error": {
            "type": "string",
            "description": "empty on success; INVALID_USERNAME_OR_PASSWORD, INPUT_VALIDATION_ERROR, "
            "INVALID_APP_KEY, NO_SESSION or TEMPORARY_BAN_TOO_MANY_REQUESTS otherwise",
        },
        "errorDetails": {"type": "string",
                         "description": "on a refusal with more to say than its code: what was wrong"},
    },
}

_ERROR = {
    "type": "object",
    "required": ["error", "details"],
    "properties": {"error": {"type": "string"}, "details": {"type": "string"}},
}

_BODY_TIMEOUT = {"description": "REQUEST_TIMEOUT: the body did not arrive within the body timeout (serve "
                 "--body-timeout); the connection is closed", "content": {"application/json": {"schema": _ERROR}}}


def _rpc_call(methods: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["method"],
        "properties": {
            "jsonrpc": {"const": "2.0"},
            "method": {"enum": list(methods)},
            "params": {"type": "object", "description": "named parameters, as API-NG documents them"},
            "id": {"type": ["integer", "string", "null"]},
        },
    }


def _rpc_path(summary: str, methods: tuple[str, ...]) -> dict[str, Any]:
    call = _rpc_call(methods)
    return {
        "post": {
            "summary": summary,
            "parameters": _AUTH_HEADERS,
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"oneOf": [call, {"type": "array", "items": call}]}}},
            },
            "responses": {
                "200": {
                    "description": "a JSON-RPC response (or an array of them for a batch): ``result``, or ``error`` "
                    "with code -32700 (parse), -32600 (invalid request), -32601 (method not found), -32602 "
                    "(invalid params) or -32099 (APINGException, message ANGX-00NN, data.APINGException.errorCode; "
                    "the account endpoint's AccountAPINGException numbers its codes AANGX-00NN; "
                    "REQUEST_SIZE_EXCEEDS_LIMIT for a body over 1 MiB)",
                    "content": {"application/json": {"schema": {"type": ["object", "array"]}}},
                },
                "408": _BODY_TIMEOUT,
            },
        }
    }


def _rest_path(summary: str, methods: tuple[str, ...]) -> dict[str, Any]:
    """API-NG over REST: ``POST .../rest/v1.0/{method}/`` with the method's params object as the body."""
    return {
        "post": {
            "summary": summary,
            "parameters": [*_AUTH_HEADERS, {"name": "method", "in": "path", "required": True,
                                            "schema": {"enum": [m.rsplit("/", 1)[-1] for m in methods]}}],
            "requestBody": {"content": {"application/json": {"schema": {
                "type": "object", "description": "the method's named parameters, as API-NG documents them"}}}},
            "responses": {
                "200": {"description": "the method's result alone (what JSON-RPC carries in ``result``)",
                        "content": {"application/json": {"schema": {"type": ["object", "array"]}}}},
                "400": {"description": "a refused call, as Betfair's REST answers it: ``faultcode`` Client, "
                        "``faultstring`` ANGX-00NN (AANGX-00NN on the account API), ``detail.APINGException`` "
                        "(``AccountAPINGException``) with ``errorCode``, ``errorDetails`` and ``requestUUID``",
                        "content": {"application/json": {"schema": {"type": "object", "required": [
                            "faultcode", "faultstring", "detail"]}}}},
                "404": {"description": "NOT_FOUND: no such method on this API",
                        "content": {"application/json": {"schema": _ERROR}}},
                "408": _BODY_TIMEOUT,
            },
        }
    }


def _api_ng_paths() -> dict[str, Any]:
    """API-NG's two endpoints, each over JSON-RPC and over REST."""
    return {
        "/exchange/betting/json-rpc/v1": _rpc_path("API-NG betting (JSON-RPC 2.0)", BETTING_METHODS),
        "/exchange/account/json-rpc/v1": _rpc_path("API-NG accounts (JSON-RPC 2.0)", ACCOUNT_METHODS),
        "/exchange/betting/rest/v1.0/{method}/": _rest_path("API-NG betting over REST", BETTING_METHODS),
        "/exchange/account/rest/v1.0/{method}/": _rest_path("API-NG accounts over REST", ACCOUNT_METHODS),
        "/exchange/heartbeat/json-rpc/v1": _rpc_path(
            "Heartbeat API (JSON-RPC 2.0): preferredTimeoutSeconds (0 unregisters; 10 to 300 used) → "
            "{actionPerformed, actualTimeoutSeconds}; past the timeout with no call, the account's unmatched bets "
            "are cancelled (errors: HBT-00NN)", HEARTBEAT_METHODS),
        "/exchange/heartbeat/rest/v1.0/{method}/": _rest_path("Heartbeat API over REST", HEARTBEAT_METHODS),
        "/exchange/betting/rest/v1/{locale}/navigation/menu.json": _menu_path(),
    }


def _no_query() -> dict[str, Any]:
    """The refusal of a route that takes no query parameter."""
    return {"description": "INVALID_INPUT_DATA: a query parameter (the route takes none)",
            "content": {"application/json": {"schema": _ERROR}}}


def _menu_path() -> dict[str, Any]:
    """Betfair's navigation menu (betfairlightweight's ``navigation.list_navigation``)."""
    node = {"type": "object", "required": ["type", "id", "name"], "properties": {
        "type": {"enum": ["GROUP", "EVENT_TYPE", "EVENT", "MARKET"]}, "id": {"type": ["string", "integer"]},
        "name": {"type": "string"}, "children": {"type": "array"}}}
    return {"get": {
        "summary": "The open markets as Betfair's menu tree: ROOT > EVENT_TYPE > GROUP (a channel) > EVENT (a game) > "
                   "MARKET (exchangeId, marketType, marketStartTime, numberOfWinners); ids are strings, not the root's",
        "parameters": [*_AUTH_HEADERS, {"name": "locale", "in": "path", "required": True,
                                        "schema": {"type": "string", "pattern": "^[a-z]{2}$"}}],
        "responses": {
            "200": {"description": "the menu", "content": {"application/json": {"schema": node}}},
            "400": _no_query(),
            "401": {"description": "NO_SESSION or INVALID_SESSION_INFORMATION",
                    "content": {"application/json": {"schema": _ERROR}}},
        },
    }}


def _identity_path(summary: str, form: bool) -> dict[str, Any]:
    op: dict[str, Any] = {
        "summary": summary,
        # keepAlive and logout take the key only if given, as Betfair's: the session knows its own
        "parameters": [{"name": "X-Application", "in": "header", "required": form, "schema": {"type": "string"}}]
        + ([] if form else [_AUTH_HEADERS[1]]),
        "responses": {"200": {"description": "status SUCCESS or FAIL", "content": {"application/json": {
            "schema": _IDENTITY_ANSWER}}}},
    }
    if form:
        op["responses"]["408"] = _BODY_TIMEOUT
        op["requestBody"] = {
            "required": True,
            "content": {
                "application/x-www-form-urlencoded": {
                    "schema": {
                        "type": "object",
                        "required": ["username", "password"],
                        "properties": {"username": {"type": "string"}, "password": {"type": "string"}},
                    }
                }
            },
        }
    return {"post": op}


_SELECTION = {
    "type": "object",
    "properties": {
        "selectionId": {"type": "integer"},
        "name": {"type": "string"},
        "status": {"enum": ["IN_PLAY", "WINNER", "LOSER", "TIED_DEAD_HEAT", "CAN_NOT_WIN", "REMOVED"],
                   "description": "REMOVED: in play when its market was voided (its bets refunded)"},
        "cards": {"type": "array", "items": {"type": "string"}, "description": '"NOT AVAILABLE" while face down'},
        "bestAvailableToBackPrices": {"type": "array"},
        "bestAvailableToLayPrices": {"type": "array"},
        "equity": {"type": "number", "description": "the selection's dead-heat share of the pot (0 to 1), "
                   "as the engine computed it at the last reveal (not in Betfair's Games API); absent while its "
                   "market's equitiesPending"},
        "equityExact": {"type": "string", "description": "the same share as an exact fraction, \"p/q\", where it is "
                        "exact (absent for a Monte Carlo estimate, which has equityStderr)"},
        "equityStderr": {"type": "number", "description": "only where the equity is a Monte Carlo estimate (a game "
                         "with too many deals to count within a window): its standard error, as a share"},
    },
}

_SNAPSHOT = {
    "type": "object",
    "properties": {
        "channel": {"type": "object"},
        "game": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "round": {"type": "integer", "minimum": 0, "maximum": 5,
                          "description": "the betting round, 1 to 5; 0 while the game has no round (being dealt "
                          "again after a misdeal, or voided before its first window)"},
                "roundName": {"type": ["string", "null"], "description": "the game's name for the round: Flop, "
                              "4th street (null with round 0)"},
                "bettingWindowTime": {"type": "integer", "description": "seconds per betting window"},
                "bettingWindowMs": {"type": "integer", "minimum": 1, "description": "milliseconds per betting "
                                    "window (exact where bettingWindowTime, in whole seconds, is not)"},
                "bettingWindowPercentageComplete": {"type": "integer", "minimum": 0, "maximum": 100},
                "bettingWindowRemainingMs": {"type": "integer", "minimum": 0, "description": "milliseconds until "
                                             "the betting window closes (0 between windows)"},
                "suspendedReason": {"type": ["string", "null"], "description": "why the game's markets are "
                                    "suspended inside their betting window: 'operator: ' and the operator's "
                                    "reason, or 'a card exposed before its time'; null otherwise (a replay keeps "
                                    "none)"},
                "gameData": {"type": "object", "description": "hands (cards, NOT AVAILABLE until dealt; faces UP or "
                             "DOWN; draws in draw games) and community cards; exposedCards only when a dealer's "
                             "error showed cards before their time (Hold'em-dealt games); deadCards only when "
                             "some of those are out of play for the rest of the game (burned: every price counts "
                             "them out)"},
                "markets": {"type": "array", "description": "every market of the game: one, or a hi/lo game's "
                            "High (marketType WIN) and Low (LOW)", "items": {"type": "object", "properties": {
                    "marketId": {"type": "string"}, "marketType": {"enum": ["WIN", "LOW"]},
                    "status": {"type": "string"},
                    "minStake": {"type": "number", "description": "the smallest size an order on the market may "
                                 "have (else INVALID_BET_SIZE)"},
                    "equitiesPending": {"type": "boolean", "description": "the cards just turned are being priced "
                                        "(a few tens of ms after a reveal, the market suspended): no selection has an "
                                        "equity until they are, the last figures being of other cards"},
                    "selections": {"type": "array", "items": _SELECTION}}}},
            },
        },
    },
}


_RESULT_MARKET = {
    "type": "object",
    "properties": {
        "marketId": {"type": "string"},
        "marketType": {"enum": ["WIN", "LOW"], "description": "as API-NG and the stream: WIN for a game's "
                       "market and a hi/lo game's High market, LOW for its Low market"},
        "marketName": {"type": "string"},
        "status": {"const": "CLOSED"},
        "result": {"enum": ["SETTLED", "VOID"]},
        "winners": {"type": "array", "items": {"type": "integer"}, "description": "selection ids; several: a dead "
                    "heat; empty when voided (a Low market's No low is selection 5)"},
        "deadHeat": {"type": "boolean"},
        "early": {"type": "boolean", "description": "the result was certain before the last cards"},
        "settledEarly": {"type": "array", "items": {"type": "integer"}, "description": "selections settled as "
                         "losers at a reveal before the result"},
        "voidReason": {"type": ["string", "null"]},
        "selections": {"type": "array", "items": {"type": "object", "properties": {
            "selectionId": {"type": "integer"}, "name": {"type": "string"},
            "status": {"enum": ["WINNER", "TIED_DEAD_HEAT", "LOSER", "REMOVED"]}}}},
    },
}

_RESULTS = {
    "type": "object",
    "properties": {
        "channel": {"type": "string"},
        "kept": {"type": "integer", "description": "results the server keeps per channel (the largest limit)"},
        "results": {"type": "array", "description": "newest first", "items": {"type": "object", "properties": {
            "id": {"type": "string", "description": "the game's (main) market id"},
            "gameNumber": {"type": "integer"},
            "channel": {"type": "object"},
            "status": {"enum": ["SETTLED", "VOID"]},
            "endedMs": {"type": "integer", "description": "when the game ended (epoch ms)"},
            "voidReason": {"type": ["string", "null"]},
            "gameData": {"type": "object", "description": "hands (cards, faces) and community cards at the end, as "
                         "in the snapshot; exposedCards (every card a dealer's error showed, a misdeal's "
                         "included) and deadCards (those of them burned) only when there were some"},
            "markets": {"type": "array", "items": _RESULT_MARKET},
        }}},
    },
}


def _results_path() -> dict[str, Any]:
    refusal = {"content": {"application/json": {"schema": _ERROR}}}
    return {"get": {
        "summary": "The channel's last settled or voided games, newest first: each market's winners, dead heat, "
        "early settlement and void reason, and the cards at the end (the server keeps the last `kept` per channel, "
        "across restarts)",
        "parameters": [{"name": "channelId", "in": "path", "required": True, "schema": {"type": "string"}},
                       {"name": "limit", "in": "query", "required": False,
                        "schema": {"type": "integer", "minimum": 1, "default": 10},
                        "description": "how many results, 1 to the number kept per channel (serve --keep-results, "
                                       "100 by default)"}],
        "responses": {
            "200": {"description": "results", "content": {"application/json": {"schema": _RESULTS}}},
            "400": {"description": "INVALID_INPUT_DATA: limit is not a whole number from 1 to the number kept, or "
                    "an unknown query parameter", **refusal},
            "404": {"description": "CHANNEL_NOT_FOUND: the server runs no such channel", **refusal},
        },
    }}


def _operator_post(what: str, path_param: dict[str, Any], body: dict[str, Any], done: str,
                   refusals: dict[str, str], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """An operator route's POST: ``path_param`` names what it acts on, ``body`` its required JSON fields and
    ``optional`` the others, ``done`` the answer's fields, ``refusals`` its own refusals beyond a session's and a
    role's, by status."""
    refusal = {"content": {"application/json": {"schema": _ERROR}}}
    return {"post": {
        "summary": f"Operators only: {what}",
        "parameters": [*_AUTH_HEADERS, {"in": "path", "required": True, "schema": {"type": "string"}, **path_param}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": list(body), "additionalProperties": False,
            "properties": {**body, **(optional or {})}}}}},
        "responses": {
            "200": {"description": f"done and journaled: {done}",
                    "content": {"application/json": {"schema": {"type": "object"}}}},
            "401": {"description": "no or an expired session, or no application key", **refusal},
            "403": {"description": "ACCESS_DENIED: the account is not an operator; nothing changed", **refusal},
            **{status: {"description": words, **refusal} for status, words in refusals.items()},
        },
    }}


_REASON = {"type": "string", "minLength": 1, "maxLength": 200}


def _operator_path(what: str) -> dict[str, Any]:
    return _operator_post(
        what, {"name": "marketId", "description": "CHANNEL.GAME, e.g. holdem.17"}, {"reason": _REASON},
        "action, marketId, operator, reason, at, marketStatus and status (Betfair's name for it, as listMarketBook)",
        {"400": "INVALID_INPUT_DATA: no reason, or an unknown field",
         "404": "MARKET_NOT_FOUND: not a live game's market",
         "409": "MARKET_STATE_CONFLICT: the market's state does not allow it"})


def _operator_paths() -> dict[str, Any]:
    return {
        "/operator/v1/markets/{marketId}/suspend": _operator_path(
            "suspend an open market for a technical fault (unmatched orders lapse; the window "
            "runs on its timetable)"),
        "/operator/v1/markets/{marketId}/resume": _operator_path(
            "reopen a market an operator suspended, while its betting window lasts"),
        "/operator/v1/markets/{marketId}/void": _operator_path(
            "void the game: matched bets refunded, unmatched cancelled, market closed with no winner"),
        "/operator/v1/accounts/{account}/deposit": _money_path(
            "put money into a trader's account (on its statement as a deposit)"),
        "/operator/v1/accounts/{account}/withdraw": _money_path(
            "take money out of a trader's account, at most what it has available to bet", withdraw=True),
    }


def _money_path(what: str, *, withdraw: bool = False) -> dict[str, Any]:
    amount = {"type": "number", "exclusiveMinimum": 0, "maximum": 1_000_000_000, "multipleOf": 0.01,
              "description": "pounds, two decimals at most"}
    refusals = {"400": "INVALID_INPUT_DATA: no reason, a bad amount, or an unknown field",
                "404": "ACCOUNT_NOT_FOUND: no trader's account of that name"}
    refusals["409"] = ("INSUFFICIENT_FUNDS: more than the account has available to bet; " if withdraw else "") + \
        "DUPLICATE_REFERENCE: the reference names another movement"
    reference = {"type": "string", "minLength": 1, "maxLength": 64,
                 "description": "the caller's name for this movement: sent again, it is not made twice (the first "
                                "one's answer comes back, with repeated: true)"}
    return _operator_post(what, {"name": "account", "description": "the account's name, any case"},
                          {"amount": amount, "reason": _REASON},
                          "action, account, amount, operator, reason, at, reference (if given), balance, "
                          "availableToBetBalance; repeated: true if the reference's movement was made before",
                          refusals, optional={"reference": reference})


def _identity_paths() -> dict[str, Any]:
    return {
        "/api/login": _identity_path("Interactive login: form username, password → session token", form=True),
        "/api/certlogin": _identity_path("Non-interactive (certificate) login: form username, password → "
                                         "{sessionToken, loginStatus}", form=True),
        "/api/keepAlive": _identity_path("Extend the session's lifetime", form=False),
        "/api/logout": _identity_path("End the session", form=False),
    }


def _games_paths() -> dict[str, Any]:
    """The Exchange Games API's routes: the channel list, a channel's snapshot and its results."""
    no_query = _no_query()
    return {
        "/games/v1/channels": {"get": {
            "summary": "The channels this server runs",
            "responses": {
                "200": {"description": "channel list", "content": {"application/json": {"schema": {"type": "object"}}}},
                "400": no_query,
            },
        }},
        "/games/v1/channels/{channelId}/snapshot": {"get": {
            "summary": "Exchange Games API channel snapshot: the game, its cards and its market",
            "parameters": [{"name": "channelId", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {
                "200": {"description": "snapshot", "content": {"application/json": {"schema": _SNAPSHOT}}},
                "400": no_query,
                "404": {"description": "CHANNEL_NOT_FOUND: the server runs no such channel",
                        "content": {"application/json": {"schema": _ERROR}}},
            },
        }},
        "/games/v1/channels/{channelId}/results": _results_path(),
    }


def document() -> dict[str, Any]:
    """The whole document, a fresh dict each call."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Exchange Poker Sim server",
            "version": "1.0",
            "description": "Betfair-compatible API-NG (JSON-RPC), interactive login, Exchange Games snapshots and "
            "an Exchange Stream API over WebSocket at /stream and, with serve --stream-port, over TLS lines as "
            "Betfair serves it.",
        },
        "servers": [{"url": "http://127.0.0.1:8080"}],
        "paths": {
            **_identity_paths(),
            **_api_ng_paths(),
            **_games_paths(),
            "/stream": {
                "get": {
                    "summary": "WebSocket: Exchange Stream API messages (authentication, marketSubscription, "
                    "orderSubscription, heartbeat; mcm, ocm, status, connection)",
                    "responses": {"101": {"description": "switching to WebSocket"}},
                }
            },
            "/games/v1/stream": {
                "get": {
                    "summary": "WebSocket, read-only and open to anyone: every channel's snapshot as it changes. "
                    "First {op: channels, pt, channels} (the list of /games/v1/channels) and one {op: snapshot, pt, "
                    "channel, snapshot} per channel (the snapshot of /games/v1/channels/{channelId}/snapshot); then "
                    "a snapshot message for each channel whose game changed (conflated, 50 ms) and a channels "
                    "message when a new game starts; {op: heartbeat, pt} every 5 s whatever changed. pt is the "
                    "server's clock in epoch ms; the client sends nothing",
                    "responses": {"101": {"description": "switching to WebSocket"}},
                }
            },
            "/": {"get": {"summary": "The trading page (HTML; its scripts and styles under /static/)",
                          "responses": {"200": {"description": "the page", "content": {"text/html": {}}}}}},
            "/openapi.json": {"get": {"summary": "This document",
                                      "responses": {"200": {"description": "OpenAPI"}, "400": _no_query()}}},
            **_operator_paths(),
        },
    }
