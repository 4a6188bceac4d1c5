# Declarations for the optional compiled core only (LOSTCITIES_COMPILE=1, setup.py): Cython
# reads this file beside state.py and makes GameState an extension type whose fields are C
# slots, so that the turn code that types its states (duel.pxd, steps.pxd cimport this
# file) reads and writes a field at a fixed offset instead of looking its name up. Pure
# Python never reads this file; state.py stays the one definition of the state. The fields
# that are C integers always hold small ones: the seat count, round numbers, seats, the
# phase, the turn count (at most the pack's turn cap), and bit masks over seats, colours
# (at most 12) and the five shared-list bits. Card kinds stay Python integers.
import cython

cdef class GameState:
    cdef public object pack, tables, players, seed, deals, deal, pending, board
    cdef public Py_ssize_t n, round, rounds_total, starter, to_move, phase, turn
    cdef public bint last_play
    cdef public Py_ssize_t pile_bits, shared_seats, shared_hands, shared_piles, shared_lists
    cdef public list hands, rows, row_states, playable, piles, deck, moves, finished, undo
    cdef public list held_bits, playable_bits
    @cython.locals(new=GameState)
    cpdef GameState fork(self)
    cpdef GameState copy(self)
    cpdef share_all(self)
    cpdef own_hand(self, seat)
    cpdef own_pile(self, colour)
    cpdef own_deck(self)
    cpdef own_moves(self)
    cpdef own_all(self)
    cpdef own_seat(self, seat)
