"""The compiled search (issue #73): bitboards, a legal move generator, an evaluation and an
alpha-beta search compiled by numba, for the speed a search in Python cannot have.

python-chess stays the rules everywhere else and the reference here: a ``chess.Board`` comes in
(``board.state_of``) and ``chess.Move``s go out (``board.move_of``), and the tests hold the move
generator to python-chess's by perft. ``jit`` is the one module that imports numba; nothing outside
this package imports numba, and this package's users import it lazily, so that a platform without
numba still imports the rest of the project (``jit.available`` says why not).
"""
