"""Bot matches in batches: seeded, streamed, optionally over a process pool or Ray.

Game ``i`` of a simulation with seed ``S`` is dealt with :func:`game_seed` (a hash
of ``S`` and ``i``), so results never depend on the number of workers or the
machine. Results are aggregated on the fly (:class:`Summary`) and records are
written as games finish, in game order: memory does not grow with the number
of games.
"""
from __future__ import annotations

import math
import os
import random
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Sequence, TextIO, Union

from ..bots.base import Bot, BotError, RandomBot, SeatView
from ..bots.registry import make_bot
from ..errors import LostCitiesError
from ..game.rules import RulePack
from ..game.state import OVER, SetupError
from ..game.turn import kept, new_game, playout, push, totals, why_refused, winners
from ..packs.loader import builtin_path, load_pack
from .backends import (BACKENDS, BackendError, batch_size, batches, check_workers, counted_pool,
                       game_played, polled, run_batches)
from .records import record_line
from .seeds import game_seed

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class RunningStats:
    """Count, mean, standard deviation, min and max, updated one value at a time."""

    count: int = 0
    mean: float = 0.0
    m2: float = 0.0
    low: Optional[float] = None
    high: Optional[float] = None

    def add(self, x: float) -> None:
        """Count one more value (Welford's update)."""
        self.count += 1
        delta = x - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (x - self.mean)
        if self.low is None or x < self.low:
            self.low = x
        if self.high is None or x > self.high:
            self.high = x

    @property
    def sd(self) -> float:
        """The sample standard deviation (0 below two values)."""
        return math.sqrt(self.m2 / (self.count - 1)) if self.count > 1 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Mean, sd, min and max, rounded for display."""
        return {"mean": round(self.mean, 3), "sd": round(self.sd, 3),
                "min": self.low, "max": self.high}


@dataclass(frozen=True)
class GameResult:
    """What a finished match contributes to a summary (and its record line)."""

    index: int
    seed: int
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    round_turns: tuple[int, ...]
    round_ends: tuple[str, ...]
    record: Optional[str] = None
    #: board game: bridge crossings per round; artefacts and tokens per seat (match)
    crossings: tuple[int, ...] = ()
    artefacts: tuple[int, ...] = ()
    tokens: tuple[int, ...] = ()


def play_match(pack: RulePack, bots: Sequence[Bot], seed: int,
               labels: Optional[Sequence[str]] = None):
    """Play one match of bots (one per seat); returns the final GameState.

    Bots draw their randomness from a generator seeded by ``seed`` too. Raises
    :class:`BotError` when a bot fails or returns an illegal move. When every seat is
    the engine's own random bot, the match is one :func:`~.turn.playout` (the same
    moves from the same draws, without a view per turn or a check of moves it makes
    legal by construction).
    """
    state = new_game(pack, list(labels or [b.name for b in bots]), seed)
    rng = random.Random(f"lostcities-bots:{seed}")
    if all(type(bot) is RandomBot for bot in bots):
        return playout(state, rng)
    undo = state.undo
    while state.phase != OVER:
        seat = state.to_move
        try:
            move = bots[seat].choose(SeatView(state, seat, rng))
        except LostCitiesError:
            raise
        except Exception as err:  # a user's bot failing: say which, in one line
            raise BotError(f"bot {bots[seat].name!r} (seat {seat + 1}) failed: "
                           f"{type(err).__name__}: {err} (match seed {seed}, round "
                           f"{state.round}, turn {state.turn + 1})") from None
        refusal = why_refused(state, move)
        if refusal is not None:
            raise BotError(f"bot {bots[seat].name!r} (seat {seat + 1}) played {move}: {refusal} "
                           f"(match seed {seed}, round {state.round}, turn {state.turn + 1})")
        push(state, move)
        undo.clear()
    return state


#: what a summary reports of a match, by the round fact it reads
#: (:attr:`~..game.tables.Tables.round_facts`): the bridges crossed in each round, and each
#: seat's artefacts and tokens over the match
MATCH_FACTS: dict[str, Callable[[Any], tuple[int, ...]]] = {
    "crossings": lambda state: tuple(r.crossings for r in state.finished),
    "artefacts": lambda state: kept(state, "artefacts"),
    "tokens": lambda state: kept(state, "tokens")}


def _result(index: int, seed: int, state, record: bool, extra: dict) -> GameResult:
    finished = state.finished
    facts = state.tables.round_facts  # the board's facts a pack's rounds keep (a duel: none)
    board = {what: report(state) for what, report in MATCH_FACTS.items() if what in facts}
    scores = totals(state)
    best = max(scores)
    top = tuple(p for p, s in enumerate(scores) if s == best)
    # one best total is the sole winner; equal best totals go to the pack's tie-breaks
    won = top if len(top) == 1 else winners(state)
    if record:
        text: Optional[str] = record_line(state, {"simulation": extra}, scores, won)
    else:
        text = None
    return GameResult(index, seed, scores, won, tuple(len(r.moves) for r in finished),
                      tuple(r.end for r in finished), text, **board)


@dataclass
class Summary:
    """Aggregated results of a simulation, built one game at a time."""

    pack: str
    bots: tuple[str, ...]
    seed: int
    games: int = 0
    wins: list[int] = field(default_factory=list)      # sole wins per seat
    shared: list[int] = field(default_factory=list)    # shared wins per seat
    shared_games: int = 0
    scores: list[RunningStats] = field(default_factory=list)
    rounds: RunningStats = field(default_factory=RunningStats)
    turns: RunningStats = field(default_factory=RunningStats)
    ends: dict[str, int] = field(default_factory=dict)
    #: board game: bridge crossings per round; artefacts and tokens per seat and match
    crossings: RunningStats = field(default_factory=RunningStats)
    artefacts: list[RunningStats] = field(default_factory=list)
    tokens: list[RunningStats] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.bots)
        self.wins = self.wins or [0] * n
        self.shared = self.shared or [0] * n
        self.scores = self.scores or [RunningStats() for _ in range(n)]
        self.artefacts = self.artefacts or [RunningStats() for _ in range(n)]
        self.tokens = self.tokens or [RunningStats() for _ in range(n)]

    def add(self, result: GameResult) -> None:
        """Count one finished match."""
        self.games += 1
        won = result.winners
        if len(won) == 1:
            self.wins[won[0]] += 1
        else:
            self.shared_games += 1
            for seat in won:
                self.shared[seat] += 1
        for stats, total in zip(self.scores, result.totals):
            stats.add(total)
        self.rounds.add(len(result.round_turns))
        add_turns, ends = self.turns.add, self.ends
        for turns, end in zip(result.round_turns, result.round_ends):
            add_turns(turns)
            ends[end] = ends.get(end, 0) + 1
        for crossings in result.crossings:
            self.crossings.add(crossings)
        for artefacts, tokens, held, kept_tokens in zip(result.artefacts, result.tokens,
                                                        self.artefacts, self.tokens):
            held.add(artefacts)
            kept_tokens.add(tokens)

    def by_bot(self) -> dict[str, dict[str, Any]]:
        """Per bot name: seat-games played, sole wins, shared wins, win rate and interval."""
        out: dict[str, dict[str, Any]] = {}
        for seat, name in enumerate(self.bots):
            entry = out.setdefault(name, {"seats": 0, "wins": 0, "shared": 0})
            entry["seats"] += 1
            entry["wins"] += self.wins[seat]
            entry["shared"] += self.shared[seat]
        for entry in out.values():
            trials = entry["seats"] * self.games
            entry["seat_games"] = trials
            entry["win_rate"] = round(entry["wins"] / trials, 4) if trials else 0.0
            entry["win_95"] = [round(x, 4) for x in wilson(entry["wins"], trials)]
        return out

    def to_dict(self) -> dict[str, Any]:
        """The summary as one JSON-ready document."""
        seats = []
        for seat, name in enumerate(self.bots):
            seats.append({
                "seat": seat + 1, "bot": name, "wins": self.wins[seat],
                "shared": self.shared[seat],
                "win_rate": round(self.wins[seat] / self.games, 4) if self.games else 0.0,
                "win_95": [round(x, 4) for x in wilson(self.wins[seat], self.games)],
                "score": self.scores[seat].to_dict(),
            })
        out = {"pack": self.pack, "bots": list(self.bots), "seed": self.seed,
               "games": self.games, "shared_games": self.shared_games, "seats": seats,
               "by_bot": self.by_bot(), "rounds_per_match": self.rounds.to_dict(),
               "turns_per_round": self.turns.to_dict(),
               "round_ends": dict(sorted(self.ends.items()))}
        if self.crossings.count:
            out["board"] = {"crossings_per_round": self.crossings.to_dict(),
                            "artefacts_per_match": [a.to_dict() for a in self.artefacts],
                            "tokens_per_match": [t.to_dict() for t in self.tokens]}
        return out

    def text(self) -> str:
        """A readable report (what ``lc simulate`` prints)."""
        lines = [f"{self.games} games of {self.pack}, seed {self.seed}: "
                 f"{' vs '.join(self.bots)}"]
        w = max([12, *map(len, self.bots)]) + 2
        lines.append(f"{'seat':<5}{'bot':<{w}}{'wins':>6}{'rate':>8}  {'95% interval':<16}"
                     f"{'shared':>7}{'mean score':>12}{'sd':>8}")
        for s in self.to_dict()["seats"]:
            lo, hi = s["win_95"]
            lines.append(f"{s['seat']:<5}{s['bot']:<{w}}{s['wins']:>6}{s['win_rate']:>8.1%}  "
                         f"{f'{lo:.1%} - {hi:.1%}':<16}{s['shared']:>7}"
                         f"{s['score']['mean']:>12.1f}{s['score']['sd']:>8.1f}")
        bots = self.by_bot()
        if len(bots) < len(self.bots) or len(bots) > 1:
            lines.append("by bot (wins over seat-games):")
            for name, b in bots.items():
                lo, hi = b["win_95"]
                lines.append(f"  {name:<{w}}{b['wins']:>6} / {b['seat_games']:<8}"
                             f"{b['win_rate']:>7.1%}  {lo:.1%} - {hi:.1%}  shared {b['shared']}")
        lines.append(f"shared wins (equal totals): {self.shared_games} game(s)")
        r, t = self.rounds, self.turns
        if r.count:
            lines.append(f"rounds per match: mean {r.mean:.2f} (min {r.low}, max {r.high})")
        if t.count:
            lines.append(f"turns per round: mean {t.mean:.1f}, sd {t.sd:.1f} "
                         f"(min {t.low}, max {t.high})")
        ends = ", ".join(f"{k} {v}" for k, v in sorted(self.ends.items())) or "none"
        lines.append(f"rounds ended by: {ends}")
        c = self.crossings
        if c.count:
            lines.append(f"bridges crossed per round: mean {c.mean:.2f} "
                         f"(min {c.low}, max {c.high})")
            lines.append("artefacts / tokens per match: " + ", ".join(
                f"seat {seat + 1} {a.mean:.2f} / {t.mean:.1f}"
                for seat, (a, t) in enumerate(zip(self.artefacts, self.tokens))))
        return "\n".join(lines)


# ----------------------------------------------------------------------- workers

_WORKER: dict[str, Any] = {}


def _load(pack_ref: str, allow_outside: bool = False) -> RulePack:
    return load_pack(pack_ref, allow_outside=allow_outside)


def _init_worker(pack_ref: str, bot_specs: Sequence[str], seed: int, record: bool,
                 allow_import: bool = False, allow_outside: bool = False) -> None:
    _WORKER.clear()
    try:
        _WORKER.update(pack=_load(pack_ref, allow_outside),
                       bots=[make_bot(s, allow_import=allow_import) for s in bot_specs],
                       specs=list(bot_specs), seed=seed, record=record)
    except LostCitiesError as err:
        # the first chunk says it (as a plain LostCitiesError: it crosses the process
        # boundary), and the pool stops every worker (workers.WorkerPool)
        _WORKER["error"] = f"a worker process could not load the pack: {err}"


def _run_chunk(span: tuple[int, int]) -> list[GameResult]:
    w = _WORKER
    if "error" in w:
        raise LostCitiesError(w["error"])
    return [_run_one(w["pack"], w["bots"], w["specs"], w["seed"], i, w["record"])
            for i in range(*span)]


def _run_one(pack: RulePack, bots: Sequence[Bot], specs: Sequence[str], seed: int, index: int,
             record: bool) -> GameResult:
    gseed = game_seed(seed, index)
    state = play_match(pack, bots, gseed, specs)
    game_played()
    return _result(index, gseed, state, record,
                   {"seed": seed, "game": index, "bots": list(specs)})


@dataclass(frozen=True)
class SimulationJob:
    """What a Ray task of :func:`simulate` needs, picklable: how to load the pack, the
    bots, the seed, whether to write record lines."""

    pack: str
    bots: tuple[str, ...]
    seed: int
    record: bool
    #: ``module:Class`` bots may be imported (they were named on the command line)
    allow_import: bool = False
    #: the pack's ``extends`` may name files outside its folder (``--allow-outside``)
    allow_outside: bool = False


#: in a Ray worker: the last job's pack and bots, built once for all its batches
_JOB: dict[SimulationJob, tuple[RulePack, list[Bot]]] = {}


def run_simulation_batch(job: SimulationJob, start: int, stop: int) -> list[GameResult]:
    """Play games ``start .. stop-1`` of ``job`` (a batch of :func:`~.backends.run_batches`):
    the pack is loaded and the bots built on the first batch a process is given."""
    if job not in _JOB:
        _JOB.clear()
        _JOB[job] = (_load(job.pack, job.allow_outside),
                     [make_bot(s, allow_import=job.allow_import) for s in job.bots])
    pack, bots = _JOB[job]
    return [_run_one(pack, bots, list(job.bots), job.seed, i, job.record)
            for i in range(start, stop)]


def pack_reference(pack: RulePack) -> str:
    """How a worker process loads ``pack`` again: its built-in id or its file's path."""
    builtin = builtin_path(pack.id)
    if builtin is not None and pack.path and os.path.isfile(pack.path) \
            and os.path.samefile(builtin, pack.path):
        return pack.id
    return os.path.abspath(pack.path) if pack.path and os.path.isfile(pack.path) else pack.id


def _spans(games: int, chunk: int) -> Iterator[tuple[int, int]]:
    for start in range(0, games, chunk):
        yield (start, min(games, start + chunk))


def simulate(pack: Union[RulePack, str], bots: Sequence[str], games: int, seed: int = 0, *,
             workers: int = 1, record: Optional[TextIO] = None,
             progress: Optional[Callable[[int], None]] = None,
             chunk: Optional[int] = None, oversubscribe: bool = False,
             allow_import: bool = False, allow_outside: bool = False,
             backend: str = "local", address: Optional[str] = None) -> Summary:
    """Play ``games`` matches of ``bots`` (one name or ``module:Class`` per seat).

    ``pack`` is a RulePack or an id/path for :func:`load_pack`; with
    ``workers > 1`` the workers load it again by its path or id. Record lines go
    to ``record`` as games finish, in game order; ``progress(done)`` is called
    after each game and, with workers, as they finish games (at most every
    :data:`~.backends.POLL_SECONDS` between their chunks); ``done`` never goes down.
    Start no thread before its first call: on Linux the workers are forked.
    ``workers`` is at most one per core unless ``oversubscribe``
    (:func:`~.backends.check_workers`); ``allow_import`` lets ``module:Class`` bots be
    imported (give it only for names the person at the keyboard typed).
    ``allow_outside``: the pack's ``extends`` may name files outside its folder
    (:func:`~.packs.load_pack`); workers load it again with it, so give it whenever the
    pack needed it, a :class:`RulePack` loaded with it included. ``backend="ray"``: the
    games run as Ray tasks (:func:`~.backends.run_batches`; ``workers`` is not used) on
    the cluster at ``address`` (else ``RAY_ADDRESS``, else a local Ray instance), in
    batches of :func:`~.backends.batch_size` games (``chunk`` games, if given); each Ray
    worker loads the pack again by its id or path and builds the bots (:class:`SimulationJob`).
    Raises :class:`BotError`, :class:`~.backends.BackendError` or the engine's errors on
    bad input.
    """
    if games < 0:
        raise ValueError("games must be 0 or more")
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "local":
        check_workers(workers, oversubscribe)
    loaded = pack if isinstance(pack, RulePack) else _load(pack, allow_outside)
    ref = pack if isinstance(pack, str) else pack_reference(loaded)
    specs = [s.strip() for s in bots]
    built = [make_bot(s, allow_import=allow_import) for s in specs]
    n = len(specs)
    if not loaded.min_players <= n <= loaded.max_players:
        raise SetupError(f"{loaded.id} is for {loaded.min_players}-{loaded.max_players} players: "
                         f"give that many bots, one per seat (got {n})")
    summary = Summary(loaded.id, tuple(specs), seed)
    done = shown = 0

    def show(games: int) -> None:
        nonlocal shown
        if games > shown and progress is not None:
            shown = games
            progress(games)

    def take(result: GameResult) -> None:
        nonlocal done
        summary.add(result)
        if record is not None and result.record is not None:
            record.write(result.record)  # not joined with the newline: 26 kB copied less
            record.write("\n")
        done += 1
        if progress is not None:
            show(done)

    if backend == "ray":
        job = SimulationJob(ref, tuple(specs), seed, record is not None, allow_import,
                            allow_outside)
        todo = batches(games, chunk or batch_size(games))
        results = run_batches(run_simulation_batch, job, todo, backend="ray", address=address)
        try:
            for _, batch in results:
                for result in batch:
                    take(result)
        finally:
            results.close()
        return summary
    if workers == 1 or games <= 1:
        for index in range(games):
            take(_run_one(loaded, built, specs, seed, index, record is not None))
        return summary

    size = chunk or max(1, min(25, games // (workers * 8) or 1))
    workers = min(workers, -(-games // size))  # never more processes than chunks of work
    import multiprocessing as mp

    # fork starts workers in milliseconds with the pack already loaded; it is safe
    # here because no thread runs yet (a progress bar must start on its first call)
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    # the objects a forked worker inherits stay frozen while it starts (counted_pool): its
    # garbage collector never visits them, so their memory pages stay shared
    pool, counter = counted_pool(ctx, workers, progress is not None, _init_worker,
                                 (ref, specs, seed, record is not None, allow_import,
                                  allow_outside))
    with pool:
        chunks = pool.imap(_run_chunk, _spans(games, size))
        # with a progress callback, the games the workers finished, every POLL_SECONDS
        for results in chunks if counter is None else polled(chunks, counter, show):
            for result in results:
                take(result)
    return summary
