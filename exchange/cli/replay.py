"""``exchange-poker replay DIR``: watch a backtest's games on the trading page, with play / pause / speed.

    exchange-poker backtest --strategy scripts/value_backer.py:ValueBacker --games 20 --seed 1 --out out/value
    exchange-poker replay out/value

DIR is a backtest's ``--out`` folder (its Parquet files and ``streams/``), or a live server's recording
(``serve --record DIR``): then ``--account`` names whose bets to show, and ``--channel`` which channel's games
when it recorded several.

    exchange-poker replay out/live --account demo --channel omaha-hilo

The page at the printed address shows each game as the live table shows it
(cards turned in their windows, the equities the game published, the recorded prices), with the
strategy's (or the account's) bets, fills, "if it wins" P&L and results.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.wording import counted
from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.replay_clock import MAX_SPEED, MIN_SPEED
from exchange.cli.commands import SUMMARIES
from exchange.cli.options import fail, help_text, http_url, number_from_to, one_line_errors, port

LOOPBACK = "127.0.0.1"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("replay", help=SUMMARIES["replay"],
                                   description=help_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", type=Path, metavar="DIR",
                        help="a backtest's output folder (backtest --out), or a server's recording (serve --record)")
    parser.add_argument("--account", default=None, metavar="NAME",
                        help=f"whose bets to show, an account that bet in DIR (default {STRATEGY_ACCOUNT}, a "
                             "backtest's strategy; a server's recording has no default)")
    parser.add_argument("--channel", default=None, metavar="NAME",
                        help="the channel whose games to show (needed when DIR holds several: a server's recording)")
    parser.add_argument("--host", default=LOOPBACK, help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=port, default=8080, help="port to listen on (default 8080)")
    parser.add_argument("--speed", type=number_from_to(MIN_SPEED, MAX_SPEED), default=1.0,
                        help=f"replay speed, {MIN_SPEED:g} to {MAX_SPEED:g} (default 1: real time)")
    parser.add_argument("--paused", action="store_true", help="start paused (press Play on the page)")
    one_line_errors(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.dir.exists():
        fail(f"{args.dir}: no such folder; give a backtest's output folder (its --out) or a server's recording (its "
             "--record)")
    # loaded here, not with the parser: aiohttp and pyarrow take most of a second, which --help need not wait for
    from aiohttp import web

    from exchange.backtest.replay import ReplayError, load_timeline
    from exchange.backtest.replay_server import PLAYER, create_replay_app

    try:
        timeline = load_timeline(args.dir, args.account, args.channel)
    except (ReplayError, OSError, ValueError) as exc:
        fail(str(exc))
    app = create_replay_app(timeline)
    player = app[PLAYER]
    player.clock.set_speed(args.speed)
    if not args.paused:
        player.clock.play()
    url = f"{http_url(args.host, args.port)}/"
    line = (f"Replay of {counted(len(timeline.games), 'game')} of {timeline.channel.title} from {args.dir} on {url}  "
            "(open it in a browser: play, pause and speed on the page)")
    try:  # aiohttp calls ``print`` once the port is bound, so a refused start prints only why
        web.run_app(app, host=args.host, port=args.port, print=lambda _running: print(line, flush=True))
    except OSError as exc:
        fail(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
    return 0
