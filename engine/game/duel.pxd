# Declarations for the optional compiled core only (LOSTCITIES_COMPILE=1, setup.py): Cython
# reads this file beside duel.py and gives the fused playout's small counters and indices C
# types and its lists and tuples their exact types; the rules stay in duel.py alone, and pure
# Python never reads this file. Only values that stay small are C integers: seats, turns,
# colours (at most 12, so `1 << colour` fits), row states, draw columns, random draws. Card
# kinds and bit masks stay Python integers: a pack may have more card kinds than a C word has
# bits. tests/test_compiled.py builds the core and plays the seeded digests on it.
import cython

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
cpdef random_playout(state, rng)
