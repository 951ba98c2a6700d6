"""Whether an error profile file was made for this very casebase: its provenance (the casebase's
SHA-256, the project that made it and when, the style model of its play-time records) checked, and
:class:`ProfileMismatch` for another casebase's profile."""

from __future__ import annotations

from typing import Any

from casebase.checks import CasebaseError, kind, shown


class ProfileMismatch(CasebaseError):
    """A profile file made for other cases than the casebase beside it (built again differently):
    of no use to it, and replaced when it is profiled again."""


#: What a profile file's provenance must say, as text: the casebase it was made for, the project
#: that made it and when (the judge and the style model may be unknown: null).
PROVENANCE_TEXT = ("casebase", "casebase_sha256", "project", "made")


def check_provenance(provenance: Any, casebase_sha256: str) -> None:
    """A profile file's provenance (``description["provenance"]``): a JSON object naming the
    casebase it was made for by its SHA-256, which must be ``casebase_sha256`` (the casebase beside
    it), and the style model of its play-time records by theirs or null. Raise
    :class:`CasebaseError` saying which (:class:`ProfileMismatch` for another casebase's)."""
    if not isinstance(provenance, dict):
        raise CasebaseError(
            "the error profile has no provenance"
            if provenance is None
            else f"the error profile's provenance is a {kind(provenance)}, not a JSON object"
        )
    for key in PROVENANCE_TEXT:
        if not isinstance(provenance.get(key), str):
            raise CasebaseError(
                f"the error profile's provenance {key} is {shown(provenance.get(key))}, not text"
            )
    model = provenance.get("model_sha256")
    if model is not None and not isinstance(model, str):
        raise CasebaseError(
            f"the error profile's provenance model_sha256 is {shown(model)}, not a SHA-256"
        )
    if provenance["casebase_sha256"] != casebase_sha256:
        raise ProfileMismatch(
            f"made for another casebase ({provenance['casebase']}, SHA-256"
            f" {provenance['casebase_sha256'][:12]}…) than this one (SHA-256"
            f" {casebase_sha256[:12]}…): the casebase was built again or changed since; profile it"
            " again"
        )
