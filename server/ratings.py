"""Players' ratings of rated rooms (docs/server.md, "Players and ratings"): what a finished
match does to the ratings of the players who held its seats, by OpenSkill's
Plackett-Luce model (the ``openskill`` package, MIT), which ranks 2 to 4 players at once.

A rating is OpenSkill's ``mu`` and ``sigma`` (a new player: 25 and 25/3); what the pages
show and rank by is its conservative ``mu - 3 sigma`` (:func:`shown`: 0 for a new player,
rising as it wins and as its rating grows sure). Each family of packs (``duel``,
``board``) has its own ratings. A bot strength is a player too (:func:`bot_player`), so a
new player can take their measure against the bots.

:func:`update` is pure: the store calls it inside the transaction that stores the match's
last turn, with the ratings it holds then, so an update is applied once or not at all.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

#: a new player's rating: OpenSkill's defaults
START_MU, START_SIGMA = 25.0, 25.0 / 3.0
#: why a finished rated match changed no rating, or only some (``rated_matches.note``)
RATED, SELF_PLAY, ABANDONED, TOO_SHORT = "", "self-play", "abandoned", "too-short"
#: a match a seat forfeited (resigned, ran out of time): rated, the forfeiting seat last
FORFEIT = "forfeit"
#: a seat must have played at least this many of its own turns for the match to rate
#: anyone but its leavers (a match given up at once farms nothing)
MIN_OWN_TURNS = 3

#: bot players' ids: ``bot-`` and the bot's spec, ``@`` made ``-`` (``bot-ismcts-5``)
BOT_PREFIX = "bot-"


def bot_player(spec: str) -> str:
    """The player id of a bot strength (``greedy`` -> ``bot-greedy``, ``ismcts@5`` ->
    ``bot-ismcts-5``)."""
    return BOT_PREFIX + spec.replace("@", "-")


@dataclass(frozen=True)
class Rating:
    """A player's rating in one family: OpenSkill's ``mu`` and ``sigma``, and the number of
    matches that changed it."""

    mu: float = START_MU
    sigma: float = START_SIGMA
    matches: int = 0


def shown(rating: Rating) -> float:
    """The rating the pages show and rank by: ``mu - 3 sigma``, to one decimal."""
    return round(rating.mu - 3 * rating.sigma, 1)


@dataclass(frozen=True)
class Placing:
    """One seat at a finished rated match: the player it was dealt to, the name it played
    under, its score (the match total), whether that player still held it at the end
    (``stayed``: not left, not taken over by a bot), how many turns the seat played
    (all its player's own when it stayed), and a bot strength's spec when the seat was
    dealt to one (``ismcts@5``)."""

    seat: int
    player: str
    name: str
    score: int
    stayed: bool
    own_turns: int
    bot: str = ""
    #: the seat forfeited the match (resigned, or ran out of time): ranked last
    forfeit: bool = False


@dataclass(frozen=True)
class MatchResult:
    """A finished match of a rated room, handed to the store with its last turn: ``id``
    (unique: the room and the rounds played, as its record's name), the pack and its
    family, one :class:`Placing` a seat."""

    id: str
    room: str
    pack: str
    family: str
    placings: tuple[Placing, ...]


def ranks(placings: Sequence[Placing]) -> list[int]:
    """Each seat's rank (1 best; equal scores share a rank): those who stayed (and did not
    forfeit) by their scores, then every leaver and forfeiting seat, last together."""
    stayed = sorted({p.score for p in placings if p.stayed and not p.forfeit}, reverse=True)
    last = len(stayed) + 1
    return [stayed.index(p.score) + 1 if p.stayed and not p.forfeit else last
            for p in placings]


def verdict(result: MatchResult) -> tuple[str, set[str]]:
    """Why the match rates whom: (a note of :data:`RATED`, :data:`SELF_PLAY`,
    :data:`ABANDONED`, :data:`TOO_SHORT`; the players whose rating changes).

    - one player in two seats (their own second seat): nobody changes;
    - a seat left or taken over: only the leavers (and a seat that forfeited) change (a
      loss to those who stayed), whoever stayed keeps theirs, so giving a match up never
      feeds anyone;
    - a seat that played fewer than :data:`MIN_OWN_TURNS` of its own turns: nobody, but
      a seat that forfeited goes down (so a match given up at once feeds nobody);
    - a seat forfeited (resigned, out of time): everyone, the forfeiting seat last
      (:data:`FORFEIT`);
    - else everyone."""
    players = [p.player for p in result.placings]
    if len(set(players)) != len(players) or len(players) < 2 or not all(players):
        return SELF_PLAY, set()
    leavers = {p.player for p in result.placings if not p.stayed}
    forfeits = {p.player for p in result.placings if p.forfeit}
    if leavers:
        return ABANDONED, leavers | forfeits
    if any(p.own_turns < MIN_OWN_TURNS for p in result.placings):
        return TOO_SHORT, forfeits
    return (FORFEIT if forfeits else RATED), set(players)


def update(result: MatchResult, current: Mapping[str, Rating]
           ) -> tuple[str, dict[str, Rating]]:
    """The ratings after ``result``, from ``current`` (each seat's player's rating in the
    match's family; a player missing there starts at :class:`Rating`'s defaults): (the
    note of :func:`verdict`, the new ratings of the players it changes; the others are
    not in it)."""
    from openskill.models import PlackettLuce  # the serve extra

    note, changing = verdict(result)
    if not changing:
        return note, {}
    model = PlackettLuce()
    before = [current.get(p.player, Rating()) for p in result.placings]
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = model.rate(teams, ranks=ranks(result.placings))
    return note, {p.player: Rating(team[0].mu, team[0].sigma, old.matches + 1)
                  for p, old, team in zip(result.placings, before, after)
                  if p.player in changing}


def family_of(text: Optional[str]) -> Optional[str]:
    """``text`` if it names a family of packs (``duel``, ``board``), else None."""
    return text if text in FAMILIES else None


#: the families of packs, each with ratings of its own
FAMILIES = ("duel", "board")
