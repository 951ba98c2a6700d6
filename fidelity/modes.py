"""The ways the fidelity bench plays a position: one word each, one meaning per word.

- ``pure``: the thesis's agent (pure mode);
- ``pure-learned``: pure mode with the learned similarity (option Similarity learned, issue #61: the
  cases nearest by their embeddings vote; the casebase's ``X.embed.npz`` by the default network);
- ``generic``: the shipped default style model's favourite, alone (the master network);
- ``prior``: guided mode's prior's favourite, unvetted;
- ``alphabeta``: the built-in alpha-beta search alone (guided mode without cases or model);
- ``guided``: the prior's proposals vetted by the built-in search;
- ``puct``: guided mode with option Search puct (the search the network leads, search.md §10), no
  judge;
- ``judged``: the same proposals judged by an outside UCI engine (Selection argmax);
- ``judged-likely``: among the judged proposals, the expert's error model's likeliest move
  (Selection likely);
- ``judged-calibrated``: among the judged proposals, a move drawn by the expert's error model
  (Selection calibrated);
- ``judged-chooser``: among the judged proposals, the chooser's likeliest move (Selection likely
  with option Chooser; issue #40, search.md §9); the other judged modes play with Chooser off;
- ``stockfish``: the outside engine alone.

The two error model's modes are not called ``likely`` and ``calibrated``: those are Selection's
words, and a word means one thing (CHANGELOG.md lists the old names, which are not read).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from engine.agents.defaults import Selection


class FidelityMode(StrEnum):
    """A way of playing the held-out positions (a string, so it reads and stores as its name)."""

    PURE = "pure"
    PURE_LEARNED = "pure-learned"
    GENERIC = "generic"
    PRIOR = "prior"
    ALPHABETA = "alphabeta"
    GUIDED = "guided"
    PUCT = "puct"
    JUDGED = "judged"
    JUDGED_LIKELY = "judged-likely"
    JUDGED_CALIBRATED = "judged-calibrated"
    JUDGED_CHOOSER = "judged-chooser"
    STOCKFISH = "stockfish"

    @property
    def pure(self) -> bool:
        """Whether the thesis's pure agent plays in this mode (by either similarity)."""
        return self in (FidelityMode.PURE, FidelityMode.PURE_LEARNED)

    @property
    def judged(self) -> bool:
        """Whether the outside engine judges guided mode's proposals in this mode."""
        return self in JUDGED_MODES

    @property
    def selection(self) -> Selection:
        """Guided mode's option Selection in this mode (argmax but for the error model's two)."""
        return _SELECTIONS.get(self, Selection.ARGMAX)


#: Every mode, in the order of the tables.
FIDELITY_MODES: tuple[FidelityMode, ...] = tuple(FidelityMode)
#: The modes a run plays unless told: all but puct, whose nodes are the network's visits (10,000 by
#: default, some 15 s a position: give it ``--guided-nodes 800`` or ``--guided-movetime``).
DEFAULT_MODES: tuple[FidelityMode, ...] = tuple(
    m for m in FidelityMode if m is not FidelityMode.PUCT
)
#: The modes the outside engine plays in as guided mode's judge: with Selection argmax, the error
#: model's likeliest move, or a move drawn by it.
JUDGED_MODES = (
    FidelityMode.JUDGED,
    FidelityMode.JUDGED_LIKELY,
    FidelityMode.JUDGED_CALIBRATED,
    FidelityMode.JUDGED_CHOOSER,
)
#: The error model's modes and the chooser's, and the engine's Selection they play with.
_SELECTIONS = {
    FidelityMode.JUDGED_LIKELY: Selection.LIKELY,
    FidelityMode.JUDGED_CALIBRATED: Selection.CALIBRATED,
    FidelityMode.JUDGED_CHOOSER: Selection.LIKELY,
}


def parse_modes(words: Iterable[str]) -> list[FidelityMode]:
    """The modes ``words`` name; ValueError on another word."""
    modes = []
    for word in words:
        try:
            modes.append(FidelityMode(word))
        except ValueError:
            raise ValueError(f"mode {word!r}: one of {', '.join(FIDELITY_MODES)}") from None
    return modes
