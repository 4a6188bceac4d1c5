"""The expert's named steps: plans shared across a bot's decisions give the values
worked out anew, and the shared caches stay bounded."""
from __future__ import annotations

from enginehelpers import pack
from lostcities.engine import game_seed, make_bot, play_match
from lostcities.engine.bots import expert
from lostcities.engine.bots.expert import DUEL, Evaluation, ExpertBot


class Checked(ExpertBot):
    """The expert, checking each decision against an evaluation without shared plans."""

    decisions = 0

    def decide(self, view, memory):
        move = super().decide(view, memory)
        fresh = Evaluation(view.pack, view.observation, memory, DUEL).ranked(view.legal_moves)
        shared = Evaluation(view.pack, view.observation, memory, DUEL,
                            self.shared(view.pack)).ranked(view.legal_moves)
        assert shared == fresh
        assert move == max(fresh, key=lambda vm: vm[0])[1]
        Checked.decisions += 1
        return move


def test_shared_plans_give_the_values_of_a_fresh_evaluation():
    for pack_id in ("duel-classic", "duel-six"):
        play_match(pack(pack_id), [Checked(), make_bot("greedy")], game_seed(3, 1))
    assert Checked.decisions > 40


def test_the_shared_plans_start_afresh_past_their_bound(monkeypatch):
    monkeypatch.setattr(expert, "SHARED_PLANS", 50)
    bot = ExpertBot()
    seen = []

    class Watch(ExpertBot):
        def decide(self, view, memory):
            move = bot.decide(view, memory)
            seen.append(bot._shared.size())  # as the decision left it
            return move

        def memory(self, view):
            return bot.memory(view)

    play_match(pack("duel-classic"), [Watch(), make_bot("greedy")], game_seed(3, 2))
    assert seen and max(seen) < 50 + 2000  # one decision's entries past the bound at most
    assert min(seen[len(seen) // 2:]) < max(seen)  # it started afresh at least once


class Unshortened(ExpertBot):
    """The expert, checking each decision against one that works out the plan of every
    card a row refuses instead of taking the hand's plan for it."""

    decisions = 0

    def decide(self, view, memory):
        move = super().decide(view, memory)
        quick = Evaluation(view.pack, view.observation, memory, DUEL)
        plain = Evaluation(view.pack, view.observation, memory, DUEL)
        plain.rows._refusals_last = lambda: False
        assert quick.ranked(view.legal_moves) == plain.ranked(view.legal_moves)
        Unshortened.decisions += 1
        return move


def test_a_drawn_card_the_row_refuses_leaves_the_values_as_worked_out_card_by_card():
    for pack_id in ("duel-classic", "duel-six"):
        assert expert.SharedPlans(pack(pack_id), DUEL).refusals_last()
        play_match(pack(pack_id), [Unshortened(), make_bot("greedy")], game_seed(3, 4))
    assert Unshortened.decisions > 40
