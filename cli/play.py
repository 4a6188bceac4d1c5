"""``lc play``: Lost Cities in the terminal, against bots or each other (hotseat).

A thin front end: :mod:`lostcities.cli.session` holds the game (commands, bots,
undo, saves), :mod:`lostcities.cli.render` draws it, this module reads lines and
decides when to draw, pause or ask. On a terminal the table is redrawn every
turn, in colour; with standard input from a pipe or a file, moves are read line
by line with no prompts and no colours, refused lines go to stderr and the end
of the input saves the game. See docs/play.md.
"""
from __future__ import annotations

import os
import random
import sys
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import typer
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from lostcities.engine import (DECK, DISCARD, PLAY, legal_moves, live_scores, load_pack,
                               observation, round_scores as scores_of_rounds, totals, winners)
from lostcities.engine.errors import InputError, LostCitiesError, PackError, RecordError
from lostcities.engine.tooling import check_path, open_regular, shown_path
from lostcities.i18n import LANGS, Catalogue, detect_lang, load_messages

from .botcheck import BotCheck, Progress
from .common import ALLOW_OUTSIDE, EXIT_PROBLEM, EXIT_USAGE, complete_pack, fail
from .connect import run as connect_room
from .render import (describe, match_end, move_list, note_text, pass_screen, plain, round_scores,
                     table)
from .session import (COMMANDS, SEED_DIGITS, Note, SaveInUse, SaveLock, Session,
                      SessionError, check_save_target, data_dir, latest_save, load_save_key,
                      new_save_path, parse_players, strongest_bot)

if TYPE_CHECKING:
    from .session import Reply, Turn

#: the pack dealt when --pack is not given
DEFAULT_PACK = "duel-classic"
#: exit code after Ctrl-C in a script (the game is saved)
EXIT_INTERRUPTED = 130
#: seconds between moves when only bots play, on a terminal (--delay overrides)
WATCH_DELAY = 0.8
#: the width of the table printed to a pipe (unless $COLUMNS says otherwise)
PIPE_WIDTH = 100
#: the longest --delay, in seconds
MAX_DELAY = 60.0
#: the terminal sequence that erases the scrollback (after a clear, which erases the screen)
CLEAR_SCROLLBACK = "\x1b[3J"
#: seconds between two progress lines of the check of a resumed save's bot moves
CHECK_PROGRESS_EVERY = 1.0


def register(app: typer.Typer) -> None:
    app.command("play")(play)


def complete_lang(incomplete: str) -> list[str]:
    return [lang for lang in LANGS if lang.startswith(incomplete)]


def play(
    save_file: Optional[Path] = typer.Argument(
        None, metavar="SAVE", show_default=False,
        help="A save file to continue (the same as --resume SAVE)."),
    players: Optional[str] = typer.Option(
        None, "--players", show_default=False,
        help="Who plays, seat by seat, comma-separated: human, human:NAME, bot (the "
             "strongest), bot:NAME (e.g. bot:greedy). Default: you against the strongest bot."),
    pack: Optional[str] = typer.Option(
        None, "--pack", "-p", autocompletion=complete_pack, show_default=False,
        help=f"Built-in pack id or a house pack file (default: {DEFAULT_PACK})."),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", show_default=False,
                                       help="Deal this match (default: a random seed)."),
    level: Optional[int] = typer.Option(
        None, "--level", "-l", show_default=False,
        help="Search level of the bots that have levels, 1 (quickest) to 5 (deepest; "
             "ismcts, default 2); bot alone is then ismcts."),
    lang: Optional[str] = typer.Option(
        None, "--lang", autocompletion=complete_lang, show_default=False,
        help="Language of the messages: en or fr (default: from the locale, LANG)."),
    resume: bool = typer.Option(False, "--resume", "-r",
                                help="Continue the last saved game (or the SAVE file given)."),
    save: Optional[Path] = typer.Option(
        None, "--save", show_default=False,
        help="Save to this file after every turn: a new file, or a resumed game's own save "
             "(default: a new file in the data directory, $LOSTCITIES_DATA_DIR or "
             "~/.local/share/lostcities)."),
    delay: Optional[float] = typer.Option(
        None, "--delay", show_default=False,
        help=f"Seconds between bot moves when only bots play, 0 to {MAX_DELAY:g} (default "
             f"{WATCH_DELAY} on a terminal, 0 otherwise)."),
    allow_bot: Optional[list[str]] = typer.Option(
        None, "--allow-bot", metavar="MODULE:CLASS", show_default=False,
        help="Resuming: let the save's module:Class bot be imported (a save never imports "
             "code by itself); once per bot."),
    allow_outside: bool = ALLOW_OUTSIDE,
    connect: Optional[str] = typer.Option(
        None, "--connect", metavar="URL", show_default=False,
        help="Join a room of lc serve instead of a local game: the room's link "
             "(http://HOST:PORT/r/ROOM or ws://HOST:PORT/rooms/ROOM/ws)."),
    name: Optional[str] = typer.Option(
        None, "--name", show_default=False,
        help="With --connect: the name /join takes a seat with."),
    token: Optional[Path] = typer.Option(
        None, "--token", metavar="FILE", show_default=False,
        help="With --connect: the file that keeps your seat's token (default: one per "
             "room in the data directory, rooms-joined/)."),
    player: Optional[str] = typer.Option(
        None, "--player", metavar="KEY", show_default=False,
        help="With --connect: play as the player whose key this is (the server's first "
             "page gives it once); a rated room seats players only."),
) -> None:
    """Play Lost Cities in the terminal: p r5 deck plays r5 and draws from the deck,
    d r5 g discards r5 and takes the green pile's top; help lists every command.

    Saved after every turn; lc play --resume continues. lc play --connect URL joins a
    room of lc serve (docs/play.md, "Playing in a room"). Exit 0 when the game ends or
    is saved, 1 for a save file that cannot be resumed, 2 for bad options or a missing file.
    """
    if lang is not None and lang not in LANGS:
        fail(f"--lang {lang}: choose {' or '.join(LANGS)}", EXIT_USAGE)
    if connect is not None:
        given = [option for option, value in (
            ("SAVE", save_file), ("--players", players), ("--pack", pack), ("--seed", seed),
            ("--level", level), ("--resume", resume or None), ("--save", save),
            ("--delay", delay), ("--allow-bot", allow_bot or None)) if value is not None]
        if given:
            fail(f"--connect: the room has its own settings; drop {', '.join(given)}",
                 EXIT_USAGE)

        raise typer.Exit(connect_room(connect, lang=lang, name=name, token=token,
                                      player=player))
    alone = [o for o, v in (("--name", name), ("--token", token), ("--player", player))
             if v is not None]
    if alone:
        fail(f"{alone[0]}: only with --connect URL", EXIT_USAGE)
    if delay is not None and not 0 <= delay <= MAX_DELAY:  # nan and inf too
        fail(f"--delay {delay}: give seconds from 0 to {MAX_DELAY:g}", EXIT_USAGE)
    if seed is not None and len(str(abs(seed))) > SEED_DIGITS:
        fail(f"--seed: at most {SEED_DIGITS} digits", EXIT_USAGE)
    data = data_dir()
    try:
        for what, value in (("--save", save), ("SAVE", save_file), ("--pack", pack),
                            ("the data directory", data)):
            if value is not None:
                check_path(value, what)
    except InputError as err:
        fail(str(err), EXIT_USAGE)
    resuming = resume or save_file is not None
    if allow_bot and not resuming:
        fail("--allow-bot: only for resuming a save; a new game imports the bot:MODULE:CLASS "
             "that --players names", EXIT_USAGE)
    if resuming:
        given = [name for name, value in (("--players", players), ("--seed", seed),
                                          ("--pack", pack), ("--level", level))
                 if value is not None]
        if given:
            fail(f"{', '.join(given)}: a resumed game keeps its own settings; drop "
                 f"{'them' if len(given) > 1 else 'it'} or start a new game", EXIT_USAGE)
        path = save_file or latest_save(data)
        if path is None:
            fail(f"--resume: no saved game in {shown_path(data / 'saves')}; start one with "
                 f"lc play", EXIT_USAGE)
        _readable(path)  # a device or a FIFO is refused before any lock file is made beside it
        target = _target(save or path, own=path)
        lock = _lock(target)
        key, key_problem = _save_key(data)
        try:
            session = _resume(path, allow_bot or (), Catalogue(lang or detect_lang()), key,
                              allow_outside)
        except BaseException:
            lock.release()
            raise
        session.save_path = target
        cat = Catalogue(lang or session.lang)
        greeting = said(cat, "greeting.resumed", path=path, round=session.state.round,
                        turn=session.state.turn + 1).plain
        if session.unchecked is not None:
            greeting += "\n" + cat("resume.checking-later",
                                   moves=session.unchecked.last - session.unchecked.first)
    else:
        unfinished = latest_save(data) is not None and save is None
        cat = Catalogue(lang or detect_lang())
        key, key_problem = _save_key(data)
        session = _new(pack or DEFAULT_PACK, players, seed, cat, save, data, level, key,
                       allow_outside)
        assert session.save_path is not None
        lock = _lock(_target(session.save_path))
        greeting = cat("greeting.unfinished") if unfinished else ""
    if key_problem:
        greeting = "\n".join(filter(None, [greeting, said(cat, "greeting.no-key",
                                                           reason=key_problem).plain]))
    with lock:
        try:
            session.autosave_or_fail()
        except SessionError as err:
            fail(f"--save: {err}", EXIT_USAGE)
        interactive = sys.stdin.isatty()
        if delay is None:
            delay = WATCH_DELAY if interactive else 0.0
        code = Terminal(session, cat, interactive=interactive, delay=delay,
                        data=data).run(greeting)
    raise typer.Exit(code)


def _save_key(data: Path) -> tuple[Optional[bytes], str]:
    """The key that signs this user's saves (so that resuming one skips re-deriving the
    bot moves), and ``""``; or None and why there is none (said under the greeting)."""
    try:
        return load_save_key(data), ""
    except SessionError as err:
        return None, str(err)


def _readable(path: Path) -> None:
    """One line unless ``path`` is a regular file that can be read (2 if it is missing)."""
    if not os.path.lexists(path):
        fail(f"{shown_path(path)}: no such save file", EXIT_USAGE)
    try:
        os.close(open_regular(path))
    except InputError as err:
        fail(str(err), EXIT_PROBLEM)


def _target(path: Path, own: Optional[Path] = None) -> Path:
    """The file the game saves to, if it may: new, or the save resumed (``own``)."""
    try:
        return check_save_target(path, own)
    except SessionError as err:
        fail(str(err), EXIT_USAGE)


def _lock(path: Path) -> Any:
    """The save's lock for the whole game, or one line if another lc play holds it."""
    try:
        return SaveLock.acquire(path)
    except SaveInUse as err:
        fail(str(err), EXIT_PROBLEM)
    except SessionError as err:
        fail(f"--save: {err}", EXIT_USAGE)


def _new(pack_arg: str, players: Optional[str], seed: Optional[int], cat: "Catalogue",
         save: Optional[Path], data: Path, level: Optional[int] = None,
         key: Optional[bytes] = None, allow_outside: bool = False) -> "Session":


    try:
        rules = load_pack(pack_arg, allow_outside=allow_outside)
    except PackError as err:
        fail(str(err), EXIT_USAGE if err.code == "LC009" else EXIT_PROBLEM)
    source = str(Path(pack_arg).resolve()) if Path(pack_arg).is_file() else pack_arg
    if seed is None:
        seed = random.SystemRandom().randrange(2 ** 31)
    try:
        seats = parse_players(players, rules, you=cat("you"), player=cat("player"),
                              level=level)
        # the bots --players names were typed here: they may be imported
        return Session(rules, seats, seed, lang=cat.lang, pack_source=source,
                       save_path=save or new_save_path(data, rules.id, seed),
                       allow_bots=[p.bot for p in seats if p.kind == "bot"], key=key)
    except SessionError as err:
        text = str(err)
        fail(text if text.startswith(("--players", "--level")) else f"--pack {pack_arg}: {text}",
             EXIT_USAGE)


def _resume(path: Path, allow_bots: Sequence[str], cat: "Catalogue",
            key: Optional[bytes], allow_outside: bool = False) -> "Session":
    """The saved game, or one line. Every move goes through the engine at once; a save
    not signed with our key has its bot moves derived again by the :class:`Terminal`,
    in another process while the game goes on (:mod:`.botcheck`)."""
    try:
        return Session.load(path, allow_bots=allow_bots, key=key, allow_outside=allow_outside,
                            check_bots_later=True)
    except RecordError as err:
        fail(str(err), EXIT_PROBLEM)


class Terminal:
    """Runs a session on the terminal, or line by line from a pipe."""

    def __init__(self, session: "Session", cat: "Catalogue", *, interactive: bool,
                 delay: float, data: Path):
        self.session = session
        self.cat = cat
        self.interactive = interactive
        self.delay = delay
        self.data = data
        plain: dict[str, Any] = {}
        if not interactive:
            plain = {"no_color": True, "color_system": None, "soft_wrap": True}
            if "COLUMNS" not in os.environ:
                plain["width"] = PIPE_WIDTH
        # names and paths are shown as typed: no markup, no :emoji: codes
        self.out = Console(highlight=False, markup=False, emoji=False, **plain)
        self.err = Console(highlight=False, markup=False, emoji=False, stderr=True, **plain)
        self.recent: deque[Any] = deque(maxlen=max(2, len(session.players)))
        self.notes: list[Any] = []       # shown under the next table (greeting, undo...)
        self.line = 0                    # lines read from a pipe
        self.shown_to: Optional[int] = None  # the hotseat player who last saw the screen
        #: the check of a resumed save's bot moves, running beside the game (or None)
        self.check: Optional[BotCheck] = None
        self.check_said = time.monotonic()   # when its progress was last said (or it began)
        self.check_spoke = False         # whether its progress was said at all
        self.leaving = False             # saving to stop: say things at once
        for turn in session.last_turns(self.recent.maxlen or 2):  # a resumed game's last turns
            self._remember(turn)
        if session.unchecked is not None:
            self._start_check()

    # ----------------------------------------------------------------- the loop

    def run(self, greeting: str = "") -> int:
        """Play until the match ends or the player stops; returns the exit code."""
        self._greet(greeting)
        while True:
            try:
                code = self._step()
            except KeyboardInterrupt:
                code = self._interrupted()
            except Exception as err:  # a bug in the engine or a bot: one line, the game kept
                if os.environ.get("LOSTCITIES_DEBUG"):
                    raise
                self._error(said(self.cat, "error.internal",
                                 error=f"{type(err).__name__}: {err}"), typed=False)
                code = self._leave("quit.saved", EXIT_PROBLEM)
            if code is not None:
                return code

    def _step(self) -> Optional[int]:
        """One turn (or the match end); an exit code when the program should stop."""
        session = self.session
        refused = self._checked(wait=False)
        if refused is not None:
            return refused
        player = session.to_move
        if player is None:
            return self._match_over()
        if player.kind == "bot":
            try:
                if self.interactive and session.humans:  # a strong bot may think a while
                    with self.out.status(said(self.cat, "bot.thinking", name=player.label)):
                        turn = session.play_bot()
                else:
                    turn = session.play_bot()
            except LostCitiesError as err:
                self._error(said(self.cat, "error.bot", reason=err), typed=False)
                return self._leave("quit.saved", EXIT_PROBLEM)
            self._after(turn)
            if not session.humans:
                self._watch()
            return None
        return self._human_turn()

    def _human_turn(self) -> Optional[int]:
        session = self.session
        seat = session.state.to_move
        if self.interactive and len(session.humans) > 1 and self.shown_to != seat:
            self._pass_screen(session.players[seat].label)
        self.shown_to = seat
        self._draw()
        while True:
            line = self._read(self._prompt())
            if line is None:
                return self._leave("quit.eof", 0)
            words = line.split()
            if self.interactive and words and COMMANDS.get(words[0].lower()) == "hint":
                with self.out.status(self.cat("bot.thinking", name=strongest_bot(session.pack))):
                    reply = session.command(line)   # the search may think a while
            else:
                reply = session.command(line)
            if reply.kind == "quit":
                return self._leave("quit.saved", 0)
            if reply.kind == "board":
                self._draw()
            elif reply.kind in ("moved", "undone"):
                if reply.kind == "undone":
                    self.recent.clear()  # those turns are taken back
                self.notes.extend(self._note(n) for n in reply.notes)
                for turn in reply.turns:
                    self._after(turn)
                return None
            elif reply.kind != "pending" or not self.interactive:  # the prompt says it
                self._show_reply(reply)

    # ----------------------------------------------------------------- showing

    def _greet(self, extra: str) -> None:
        """Who plays, how to move, where the game is saved: under the first table."""
        s, cat = self.session, self.cat
        names = cat("result.and").join(plain(p.label) if p.kind == "human"
                                       else f"{plain(p.label)} (bot)" for p in s.players)
        lines = [said(cat, "greeting", players=names, seed=s.seed).plain,
                 said(cat, "greeting.how" if s.humans else "greeting.watch",
                      players=names).plain,
                 said(cat, "greeting.saving", path=s.save_path).plain]
        if extra:
            lines.append(extra)
        if self.interactive:
            self.notes.append(Panel(Text("\n".join(lines)), title=cat("greeting.title"),
                                    title_align="left", border_style="cyan", expand=False))
        else:
            self.notes.extend(Text(line) for line in lines)
            self._flush_notes()

    def _flush_notes(self) -> None:
        for note in self.notes:
            self.out.print(note)
        self.notes.clear()

    def _draw(self) -> None:
        """The table for the player to move (or the lone human, or a spectator)."""
        s = self.session
        me = s.viewer()
        state = s.state
        obs = observation(state, me if me is not None else 0)
        playable = {m.card for m in legal_moves(state) if m.action == "play"} \
            if me == state.to_move else set(obs.hand)
        if self.interactive:
            self.out.clear()
        self.out.print(table(obs, s.pack, self.cat, me=me, live=live_scores(state),
                             discard_only=[c for c in obs.hand if c not in playable],
                             width=self.out.width))
        if self.interactive and self.recent:
            self.out.print(Text(self.cat("table.last-turns"), style="dim"))
            for text in self.recent:
                self.out.print(Text("  ").append_text(text))
        if self.interactive and me is not None and obs.hand:
            self.out.print(Text(self._keys_line(obs), style="dim"))
        self._flush_notes()

    def _keys_line(self, obs: Any) -> str:
        """The commands under the table, with examples from the hand shown: a card it
        can play (``p g4 deck``), a discard taking a pile's top card (``d g4 b``); ``undo``
        only where it is allowed (one human against bots)."""
        s = self.session
        codec = s.pack.cards
        hand = sorted(obs.hand, key=codec.sort_key)
        legal = legal_moves(s.state) if obs.seat == s.state.to_move else []
        card = next((c for c in hand if any(m.action == PLAY and m.card == c for m in legal)),
                    hand[0])
        discards = [m for m in legal if m.action == DISCARD and m.draw is not None]

        def rank(move: Any) -> tuple[int, int]:  # another pile's top, the card's own, the deck
            own = move.draw == codec.colour_of[move.card]
            return (move.card != card, 2 if move.draw == DECK else 1 if own else 0)

        best = min(discards, key=rank, default=None)
        if best is None:  # not this player's turn: any pile with a card, else the deck
            pile = next((codec.keys[c] for c, top in enumerate(obs.pile_tops) if top is not None),
                        "deck")
            shown = (card, pile)
        else:
            shown = (best.card, "deck" if best.draw == DECK else codec.keys[best.draw])
        undo = len(s.humans) == 1 and len(s.players) > 1
        return self.cat("table.keys.undo" if undo else "table.keys", card=codec.format(card),
                        discard=codec.format(shown[0]), pile=shown[1])

    def _watch(self) -> None:
        """Bots only: redraw and wait between moves on a terminal."""
        if self.interactive:
            self._draw()
        if self.delay:
            time.sleep(self.delay)

    def _remember(self, turn: "Turn") -> Text:
        """``turn`` in words, kept for the "Last turns" under the next table."""
        s = self.session
        you = len(s.humans) == 1 and turn.seat in s.humans
        text = describe(turn, s.pack, s.players[turn.seat].label, self.cat, you=you)
        self.recent.append(text)
        return text

    def _after(self, turn: "Turn") -> None:
        """A turn was played: remember it, print it in a pipe, show a round's end."""
        s = self.session
        text = self._remember(turn)
        if not self.interactive:
            self.out.print(text)
        if turn.ended is None:
            return
        state = s.state
        labels = [p.label for p in s.players]
        if self.interactive:
            self.out.clear()
            for text in self.recent:
                self.out.print(text)
        self.out.print(round_scores(turn.ended, labels, s.pack, self.cat, totals(state)))
        if not turn.over:
            self.out.print(said(self.cat, "result.next", name=labels[state.starter],
                                round=state.round))
            self.recent.clear()
            if self.interactive and s.humans:
                self._read(self.cat("pause.next-round", round=state.round) + " ")
            elif self.interactive:
                time.sleep(self.delay * 3)

    def _match_over(self) -> Optional[int]:
        """Show the match's end; None when the players continue it (CONT), else the exit
        code once the record is written."""
        s = self.session
        state = s.state
        labels = [p.label for p in s.players]
        self.out.print(match_end(labels, scores_of_rounds(state), totals(state), winners(state),
                                 self.cat))
        refused = self._checked(wait=True)  # a record only of moves known to be the bots'
        if refused is not None:
            return refused
        try:  # recorded now: whatever comes after (CONT, a kill) cannot lose it
            path = s.write_record(self.data / "records")
        except OSError as err:
            self._error(said(self.cat, "error.record", reason=err.strerror or err),
                        typed=False)
            return self._leave("quit.saved", EXIT_PROBLEM)
        self.out.print(said(self.cat, "match.record", path=path))
        if s.pack.continuation and s.humans:
            answer = self._read(self.cat("match.cont"))
            if answer is not None and answer.strip().lower() in _yes_words():
                s.continue_match()
                self.out.print(said(self.cat, "result.next", name=labels[s.state.starter],
                                    round=s.state.round))
                return None
        s.drop_save()
        return 0

    # ----------------------------------------------------------------- the bot-move check

    def _checked(self, *, wait: bool) -> Optional[int]:
        """How the check of the saved bot moves goes (waiting for its end if ``wait``):
        its progress said now and then; once it passed the saves are signed again; an
        exit code when it refused the save (the game stops there)."""
        if self.check is None:
            return None
        progress = self.check.poll()
        if not progress.over and wait:
            if self.interactive:
                with self.out.status(self._progress_text(progress)) as status:
                    progress = self.check.wait(
                        CHECK_PROGRESS_EVERY, lambda p: status.update(self._progress_text(p)))
            else:
                progress = self.check.wait(CHECK_PROGRESS_EVERY, self._say_progress)
        if not progress.over:
            self.session.checked_up_to(progress.done)
            if time.monotonic() - self.check_said >= CHECK_PROGRESS_EVERY:
                self._say_progress(progress)
            return None
        self._stop_check()
        if progress.refused:  # as a save refused on resuming is: lc: error: ...
            self._error(f"lc: error: {progress.refused}", typed=False)
            return EXIT_PROBLEM
        self.session.bots_checked()
        if self.check_spoke or self.interactive:  # a quick check needs no word in a script
            self._say(self.cat("resume.check-passed", moves=progress.moves))
        return None

    def _start_check(self) -> None:
        """The check of the saved bot moves, in a child process; where none can be started
        (a process limit), here and now, before the game goes on, as lc play did before."""
        saved = self.session.unchecked
        assert saved is not None
        try:
            self.check = BotCheck(saved)
            return
        except OSError:
            pass
        def progress(done: int, moves: int) -> None:
            if not self.interactive and \
                    time.monotonic() - self.check_said >= CHECK_PROGRESS_EVERY:
                self._say_progress(Progress(done, moves))

        try:
            saved.check_bots(progress)
        except RecordError as err:
            fail(str(err), EXIT_PROBLEM)
        self.session.bots_checked()

    def _progress_text(self, progress: "Progress") -> str:
        return self.cat("resume.check-progress", done=progress.done, moves=progress.moves)

    def _say_progress(self, progress: "Progress") -> None:
        """A plain line on stderr in a pipe; under the next table on a terminal."""
        self.check_said, self.check_spoke = time.monotonic(), True
        self._say(self._progress_text(progress))

    def _say(self, text: str) -> None:
        if not self.interactive:
            self.err.print(Text(text))
        elif self.leaving:
            self.out.print(Text(text, style="dim"))
        else:
            self.notes.append(Text(text, style="dim"))  # under the next table

    def _stop_check(self) -> None:
        """End the check's process; an unfinished check is kept in the next save (signed)
        to go on from where it stopped, when the game has a key."""
        if self.check is None:
            return
        progress = self.check.poll()
        self.check.stop()
        self.check = None
        if not progress.over:
            self.session.checked_up_to(progress.done)
            key = "resume.check-paused" if self.session.key is not None \
                else "resume.check-stopped"
            self._say(self.cat(key, done=progress.done, moves=progress.moves))

    def _show_reply(self, reply: "Reply") -> None:
        for note in reply.notes:
            if reply.kind == "error":
                self._error(self._note(note))
            else:
                self.out.print(self._note(note))
        if reply.moves:
            self.out.print(move_list(reply.moves, self.cat, self.out.width))

    def _note(self, note: Any) -> Any:

        s = self.session
        if note.key == "pending.which" and s.pending is not None:  # said in this language
            key, params = s.entry(self.cat).pending_note(s.pending)
            note = Note(key, params)
        return Text(note_text(note, self.cat))

    def _error(self, message: Any, *, typed: bool = True) -> None:
        """A refused line (``typed``) or a failure: red on a terminal, one line on stderr
        in a pipe, naming the input line it answers."""
        text = plain(message)
        if self.interactive:
            self.out.print(Text(text, style="bold red"))
        elif typed:
            self.err.print(said(self.cat, "input.line", line=self.line, message=text))
        else:
            self.err.print(Text(text))

    def _pass_screen(self, name: str) -> None:
        """Hotseat: hide the last player's screen, its scrollback too, before the next."""
        self.out.clear()
        if self.out.is_terminal and not self.out.is_dumb_terminal:
            self.out.file.write(CLEAR_SCROLLBACK)  # else the last hand is a scroll away
            self.out.file.flush()
        self.out.print(pass_screen(name, self.cat))
        self._read("")

    # ----------------------------------------------------------------- input

    def _prompt(self) -> str:
        s = self.session
        if s.pending is not None:
            return s.entry(self.cat).prompt(s.pending)
        return said(self.cat, "prompt", name=s.players[s.state.to_move].label).plain

    def _read(self, prompt: str) -> Optional[str]:
        """A line from the player; None at the end of input (Ctrl-D, end of a pipe)."""
        if self.interactive:
            try:
                return self.out.input(prompt, markup=False, emoji=False)
            except EOFError:
                self.out.print()
                return None
        line = sys.stdin.readline()
        if not line:
            return None
        self.line += 1
        return line.rstrip("\n")

    def _leave(self, key: str, code: int) -> int:
        """Save, say where, and give the exit code. A check of the saved bot moves still
        running is waited for when a script ends (Ctrl-C stops that wait), else stopped
        (on a terminal, after Ctrl-C or a failure): the save then says where it stopped
        (:meth:`Session.checked_up_to`)."""
        self.leaving = True
        if self.interactive or code != 0:  # a person waiting to go, Ctrl-C or a failure
            self._stop_check()
        if self.check is not None:
            try:
                refused = self._checked(wait=True)
            except KeyboardInterrupt:
                self._stop_check()
                refused, code = None, EXIT_INTERRUPTED
            if refused is not None:
                return refused
        try:
            path = self.session.autosave_or_fail()
        except SessionError as err:
            self._error(err, typed=False)
            return EXIT_PROBLEM
        self.out.print(said(self.cat, key, path=path), soft_wrap=True)
        return code

    def _interrupted(self) -> Optional[int]:
        """Ctrl-C: on a terminal ask to save and quit; in a script save and stop."""
        if not self.interactive:
            return self._leave("quit.interrupted", EXIT_INTERRUPTED)
        self.out.print()
        try:
            answer = self.out.input(self.cat("quit.ask"), markup=False, emoji=False)
        except (EOFError, KeyboardInterrupt):
            answer = ""
        if answer.strip().lower() in {"", *_yes_words()}:
            return self._leave("quit.saved", 0)
        return None


def said(cat: "Catalogue", key: str, /, **params: Any) -> Any:
    """The message ``key`` as a :class:`~rich.text.Text`, every text parameter (a name, a
    path, an error from data) through :func:`~lostcities.cli.render.plain`: printed as
    written, never as markup or a terminal control sequence."""
    return Text(cat(key, **{name: value if isinstance(value, (int, float)) else plain(value)
                            for name, value in params.items()}))


def _yes_words() -> set[str]:
    """The words for yes in every catalogue (a French player may type o or y)."""
    return {word for lang in LANGS for word in load_messages(lang)["yes"].split()}
