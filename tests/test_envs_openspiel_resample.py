"""OpenSpiel's resampling of python_lostcities (issue 29, item 1): a resampled state is a whole
match rebuilt through the engine, so OpenSpiel's ISMCTS bot plays whole duel-classic and
board-classic matches with its DEFAULT flags; two states with one information state for the
seat to move have the same legal actions; a resampled state's history, information states
and serialisation agree, hold the seat's information state unchanged and give back no other
seat's hidden cards (the world drawn depends on the seat's information alone)."""
from __future__ import annotations

import pickle
import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install 'lostcities[rl]')")
np = pytest.importorskip("numpy")

from hypothesis import given, settings, strategies as st  # noqa: E402

from lostcities.engine import InputError, load_pack  # noqa: E402
from lostcities.envs.openspiel_game import OPENSPIEL_NAME  # noqa: E402  (registers the game)


def _game(pack_id: str, players: int = 2):
    return pyspiel.load_game(OPENSPIEL_NAME, {"pack": pack_id, "players": players})


def _walk(state, rng: random.Random, decisions: int):
    """Play on at random (chance by its probabilities) for ``decisions`` decisions or to the
    end; the state is left at a decision node unless the match is over."""
    done = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        elif done == decisions:
            break
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            done += 1
    return state


@pytest.mark.parametrize("pack_id", ["duel-classic", "board-classic"])
def test_ismcts_with_its_default_flags_plays_whole_matches_against_random(pack_id):
    """OpenSpiel's ISMCTSBot as its own code makes it (allow_inconsistent_action_sets False,
    every world sampled anew), rollouts by mcts.RandomRolloutEvaluator with its defaults; few
    simulations keep the test short (2, the fewest its final policy accepts)."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = _game(pack_id)
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(), 2.0, max_simulations=2,
                           random_state=rng)
    opponent = pyspiel.make_uniform_random_bot(1, 7)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.current_player() == 0:
            searched += len(state.legal_actions()) > 1
            state.apply_action(bot.step(state))
        else:
            state.apply_action(opponent.step(state))
    assert searched > 300 and len(state.match.state.finished) == 3
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def _other_hands(state, seat: int) -> list[tuple[int, list[int]]]:
    """Per other seat, the cards it holds now that ``seat`` did not see it take from a pile
    this round."""
    match = state.match
    k = match.game.n_kinds
    start = max(i for i, e in enumerate(match.events)
                if e[0] == "deal" and (i == 0 or match.events[i - 1][0] != "deal"))
    out = []
    for q in range(match.game.players):
        if q == seat:
            continue
        hidden = list(match.state.hands[q])
        taken: list[int] = []
        for e in match.events[start:]:
            if e[0] == "act" and e[1] == q:
                if e[3] >= 0:
                    taken.append(e[3])
                elif e[2] < 2 * k and e[2] % k in taken:
                    taken.remove(e[2] % k)
        for card in taken:
            hidden.remove(card)
        out.append((q, sorted(hidden)))
    return out


@pytest.mark.parametrize("pack_id", ["duel-classic", "board-classic"])
def test_a_resampled_state_keeps_the_seats_view_and_gives_back_no_hidden_hand(pack_id):
    """At stops along random matches (fixed seeds), each seat's resampled state: the same
    information state, observation, legal actions and history length for the seat to move;
    its history, serialisation and information states agree; the other seat's hidden cards
    are the true ones in few of the resamplings (the issue's old code: 470 of 504)."""
    game = _game(pack_id)
    rng = random.Random(11)
    same = compared = 0
    for stop in range(40):
        state = _walk(game.new_initial_state(), rng, rng.randrange(1, 700))
        if state.is_terminal():
            continue
        p = state.current_player()
        r = state.resample_from_infostate(p, rng.random)
        assert r.current_player() == p and r.legal_actions() == state.legal_actions()
        assert r.information_state_string(p) == state.information_state_string(p)
        assert r.observation_tensor(p) == state.observation_tensor(p)
        assert r.observation_string(p) == state.observation_string(p)
        assert len(r.history()) == len(state.history())
        assert r.history() == [e[2] for e in r.match.events]
        text = pyspiel.serialize_game_and_state(game, r)
        _, back = pyspiel.deserialize_game_and_state(text)
        assert back.history() == r.history()
        for seat in range(game.num_players()):
            assert back.information_state_string(seat) == r.information_state_string(seat)
        assert pickle.loads(pickle.dumps(r)).history() == r.history()
        for (q, truth), (_, drawn) in zip(_other_hands(state, p), _other_hands(back, p)):
            if len(truth) >= 3:
                compared += 1
                same += truth == drawn
    assert compared >= 15 and same <= compared // 10


@settings(max_examples=12, deadline=None)
@given(pack_id=st.sampled_from(["duel-classic", "board-classic", "duel-six"]),
       seed=st.integers(0, 2 ** 32), decisions=st.integers(1, 900))
def test_the_world_drawn_depends_on_the_seats_information_alone(pack_id, seed, decisions):
    """Two states the seat to move cannot tell apart (the match, and another world drawn for
    it), resampled with the same seed, give the same state: the resampling reads nothing
    the seat did not see."""
    game = _game(pack_id)
    state = _walk(game.new_initial_state(), random.Random(seed), decisions)
    if state.is_terminal():
        return
    p = state.current_player()
    fresh = pickle.loads(pickle.dumps(state))  # the same match, nothing resampled yet
    for attempt in range(6):  # another world: some hidden card elsewhere
        other = state.resample_from_infostate(p, seed + attempt)
        if other.history() != state.history():
            break
    assert other.history() != state.history()
    assert other.information_state_string(p) == state.information_state_string(p)
    a = fresh.resample_from_infostate(p, 99)
    b = other.resample_from_infostate(p, 99)
    assert a.history() == b.history()
    assert pyspiel.serialize_game_and_state(game, a) == pyspiel.serialize_game_and_state(game, b)


@settings(max_examples=10, deadline=None)
@given(pack_id=st.sampled_from(["duel-classic", "board-classic"]),
       seed=st.integers(0, 2 ** 32), decisions=st.integers(1, 800))
def test_one_information_state_one_set_of_legal_actions(pack_id, seed, decisions):
    """States collected along a match, its resamplings for the seat to move and random play
    on from them (as ISMCTS's simulations do): two with the same information state for the
    player to move have the same legal actions."""
    game = _game(pack_id)
    rng = random.Random(seed)
    state = _walk(game.new_initial_state(), rng, decisions)
    if state.is_terminal():
        return
    seen: dict[tuple[int, str], list[int]] = {}

    def note(s) -> None:
        if not s.is_terminal() and not s.is_chance_node():
            key = (s.current_player(), s.information_state_string())
            assert seen.setdefault(key, s.legal_actions()) == s.legal_actions()

    note(state)
    p = state.current_player()
    for _ in range(4):
        world = state.resample_from_infostate(p, rng.random)
        note(world)
        for _ in range(12):
            if world.is_terminal():
                break
            world = _walk(world, rng, 1)
            note(world)
    assert len(seen) > 1


def test_a_fresh_round_deals_the_unseen_cards_uniformly():
    """After round 1's deal, the other seat's resampled hand holds each card the seat to move
    has not seen with probability 8 / 52 (400 draws, every card within 5 deviations)."""
    game = _game("duel-classic")
    state = _walk(game.new_initial_state(), random.Random(3), 0)
    p = state.current_player()
    pack = load_pack("duel-classic")
    unseen: dict[int, int] = {}
    for card in pack.deck():
        unseen[card] = unseen.get(card, 0) + 1
    for card in state.match.state.hands[p]:
        unseen[card] -= 1
    counts: dict[int, int] = {}
    rng = random.Random(5)
    draws = 400
    for _ in range(draws):
        r = state.resample_from_infostate(p, rng)
        for card in r.match.state.hands[1 - p]:
            counts[card] = counts.get(card, 0) + 1
    share = 8 / 52
    for card, copies in unseen.items():
        mean = draws * copies * share
        sd = (draws * copies * share * (1 - share)) ** 0.5
        assert abs(counts.get(card, 0) - mean) <= 5 * sd + 1, pack.cards.format(card)


def test_resampling_takes_any_sampler_and_refuses_a_bad_seat_in_one_line():
    game = _game("duel-classic")
    state = _walk(game.new_initial_state(), random.Random(8), 40)
    p = state.current_player()
    for sampler in (pyspiel.UniformProbabilitySampler(0.0, 1.0), random.Random(1), 4, None):
        r = state.resample_from_infostate(p, sampler)
        assert r.information_state_string(p) == state.information_state_string(p)
    assert state.resample_from_infostate(p, 4).history() == \
        state.resample_from_infostate(p, 4).history()
    for bad in (5, -1):
        with pytest.raises(InputError) as err:
            state.resample_from_infostate(bad, 1)
        assert "\n" not in str(err.value) and "seat" in str(err.value)
    chance = game.new_initial_state()
    chance.apply_action(0)
    again = chance.resample_from_infostate(1, 2)  # mid-deal: seat 0's first card is hidden
    assert again.is_chance_node() and len(again.history()) == 1
    assert again.information_state_string(1) == chance.information_state_string(1)
