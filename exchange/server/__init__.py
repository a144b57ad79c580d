"""The exchange server: Betfair-compatible HTTP API, stream, accounts and a durable journal.

A thin driver over the exchange core and the game channels (see
``/work/shared/spec/architecture.md``): it translates API-NG JSON-RPC, the
interactive login, the Exchange Games snapshot and the Exchange Stream API into
commands and views, and writes the events every accepted command produced (and
each game's result, the operators' actions) to a SQLite journal before it
answers.
"""
