# Declarations for the optional compiled core only (LOSTCITIES_COMPILE=1, setup.py): Cython
# reads this file beside duel.py. Every function on a duel's hot path takes a typed state
# (state.pxd), so each field is read at its offset; the fused playout's small counters and
# indices and the other functions' seats, colours and row states are C integers, and their
# lists and tuples have their exact types; the rules stay in duel.py alone, and pure Python
# never reads this file. Only values that stay small are C integers: seats, turns, colours
# (at most 12, so `1 << colour` fits), row states, draw columns, random draws. Card kinds and
# bit masks over cards stay Python integers: a pack may have more card kinds than a C word
# has bits. A function declared here is called in C from this module, so replacing it from
# outside changes nothing inside: `refusal`, the full check that tests count, stays out.
# tests/test_compiled.py builds the core and plays the seeded digests on it.
import cython
from lostcities.engine.game.state cimport GameState as CState

@cython.locals(p=cython.Py_ssize_t, turn=cython.Py_ssize_t, n_plays=cython.Py_ssize_t,
               columns=cython.Py_ssize_t, cells=cython.Py_ssize_t, k=cython.Py_ssize_t,
               r=cython.Py_ssize_t, option=cython.Py_ssize_t, column=cython.Py_ssize_t,
               colour=cython.Py_ssize_t, old=cython.Py_ssize_t, new=cython.Py_ssize_t,
               draw=cython.Py_ssize_t, n_draws=cython.Py_ssize_t, retake=cython.Py_ssize_t,
               turn_cap=cython.Py_ssize_t, n=cython.Py_ssize_t, play=cython.bint,
               deck_ends=cython.bint, hand=list, mine=list, rs=list, my_rows=list,
               piles_of=list, deck=list, held_bits=list, playable_bits=list, pile=list,
               seats=list, hands=list, rows=list, row_states=list, colour_of=tuple,
               after_card=tuple, draws_of=tuple, draw_columns=tuple, discard_keeps=tuple,
               draws=tuple, next_seat=tuple, play_moves=tuple, discard_moves=tuple)
cpdef random_playout(CState state, rng)

ctypedef Py_ssize_t ssize

@cython.locals(p=ssize, deck=ssize)
cpdef legal_moves(CState state)
@cython.locals(p=ssize)
cpdef why_refused(CState state, move)
cpdef push(CState state, move)
@cython.locals(p=ssize, n=ssize, colour=ssize, hands=list, hand=list, held_bits=list, deck=list)
cpdef CState on_fork(CState state, move)
@cython.locals(rows=list, seat=list, old=ssize, rs=ssize)
cpdef _play_on_fork(CState new, CState state, ssize p, ssize colour, card)
@cython.locals(p=ssize)
cpdef action_ok(CState state, action_id)
@cython.locals(p=ssize)
cpdef legal_actions(CState state)
@cython.locals(p=ssize, mask=list)
cpdef legal_action_mask(CState state)
cpdef push_action(CState state, action_id)
cpdef step_on_fork(CState state, action_id)
@cython.locals(p=ssize, colour=ssize, hands=list, hand=list, held=list, piles=list)
cpdef CState _step_card(CState state, t, action_id, k)
@cython.locals(p=ssize, hands=list, held=list, deck=list)
cpdef _step_draw(CState state, t, draw)
