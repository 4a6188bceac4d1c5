# Declarations for the optional compiled core only (LOSTCITIES_COMPILE=1, setup.py): Cython
# reads this file beside steps.py. The turn's steps take a typed state (state.pxd), so each
# field is read at its offset, and their seats, colours, row states and indices are C
# integers; card kinds and draw sources stay Python objects (a draw source may be None, and
# a pack may have more card kinds than a C word has bits). Functions that hold a generator
# expression or a lambda are left out (Cython does not compile those as cpdef). Pure Python
# never reads this file.
import cython
from lostcities.engine.game.state cimport GameState as CState


ctypedef Py_ssize_t ssize

cpdef list open_record(CState state)
cpdef draw_ok(CState state, ssize discarded, draw)
@cython.locals(p=ssize, colour=ssize, index=ssize, old=ssize, new=ssize, hand=list,
               held_bits=list, deck=list, pile=list)
cpdef play_turn(CState state, move)
cpdef own_turn(CState state, ssize p, action, ssize colour, source)
@cython.locals(p=ssize, phase=ssize, turn=ssize, colour=ssize, hand=list, held_bits=list,
               pile=list)
cpdef pop(CState state)
@cython.locals(p=ssize, record=list)
cpdef choose_card(CState state, action, card)
@cython.locals(p=ssize)
cpdef draw_turn(CState state, source)
@cython.locals(p=ssize)
cpdef decide_card(CState state, action, card, move=*, settle=*)
@cython.locals(p=ssize)
cpdef decide_draw(CState state, source, move=*)
cpdef draw_card(CState state, ssize p, source)
@cython.locals(hand=list, index=ssize, colour=ssize, old=ssize, new=ssize)
cpdef tuple place_card(CState state, ssize p, action, card)
@cython.locals(pile=list)
cpdef take_card(CState state, source)
cpdef end_turn(CState state, source, move, ended=*)
@cython.locals(s=ssize)
cpdef set_row_state(CState state, ssize p, ssize colour, ssize rs)
cpdef card_options(CState state)
cpdef draw_sources(CState state, ssize discarded)
cpdef discarded_colour(CState state, action, card)
cpdef base_draws(CState state)
cpdef after_discard(CState state, base, ssize colour)
cpdef form_refusal(CState state, move)
cpdef draw_refusal(CState state, move)
