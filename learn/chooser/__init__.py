"""The chooser (issue #40): which move an expert plays among the candidates the engine scores at
play time. :mod:`learn.chooser.data` makes its training and evaluation records from PGN files
(``python -m learn.chooser.data``, the positions drawn by :mod:`learn.chooser.positions`); the
rest of the package reads them into features, fits the chooser and measures it beside
``Selection likely`` (``python -m learn.chooser``)."""
