"""The numbers fitted across the shipped experts' error profiles, written to their file: the rating
line and the shipped experts' typical parameters (``engine/strength/models/fitted.json``, read by
:mod:`engine.strength.fitted`; docs/strength.md §2).

    python -m profiling.fitted casebases/*.npz --out engine/strength/models/fitted.json

Over the profiled casebases whose expert is FIDE-rated (data/experts.tsv, by the casebase's file
name): the rating line is the least-squares line of the expert's rating (the median of their own
ratings in their games) in the log of the profile's fitted expected loss per move, and its spread
the ratings' standard deviation about it (n - 2 degrees of freedom); the prior weight and the
consistency are the medians of the calibrated choice's likelihood fits with each casebase's style
model (``Model auto``), and the sensitivity line the least-squares line of their log-sensitivity
in rating - 2500. Fits of the stored profiles only: nothing is judged, so ``make casebases`` (which
fits the profiles from the shipped journals) then this command remake the shipped file.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from casebase.format import Casebase, CasebaseError
from common.files import made_stamp, write_atomic
from common.paths import PROJECT_ROOT
from engine.strength.fitted import Fitted
from engine.strength.likelihood import likelihood_fit, stored_fit
from engine.strength.profile import Profile
from engine.style.loader import load_model
from engine.style.personal import casebase_files, choose_model
from profiling import ProfileError

#: The rating the sensitivity line is written about (its r0).
SENSITIVITY_CENTRE = 2500.0
#: The rating system whose experts the numbers are fitted across.
SYSTEM = "FIDE"


def rating_systems(registry: Path) -> dict[str, str]:
    """Expert file id -> rating system (FIDE, FICS, Lichess), from the experts' registry."""
    with open(registry, newline="", encoding="utf-8") as f:
        return {row["file"]: row["rating_system"] for row in csv.DictReader(f, delimiter="\t")}


def expert_fits(casebase: Casebase) -> dict[str, Any]:
    """What the fitted numbers take of one profiled casebase: its expert's rating, the profile's
    expected loss, the likelihood fit with the casebase's style model, and where they come from."""
    profile = Profile.of(casebase)
    assert profile is not None and casebase.path is not None and casebase.elo is not None
    choice = choose_model(casebase)
    model = choice.model or load_model(choice.path)
    joint = (stored_fit(profile, model) or likelihood_fit(profile, model)).model
    made = profile.meta.get("provenance", {})
    return {
        "casebase": casebase.path.name,
        "casebase_sha256": made.get("casebase_sha256"),
        "journal": profile.meta.get("journal"),
        "expert": casebase.expert,
        "rating": casebase.elo,
        "positions": len(profile.rows),
        "expected_loss": profile.meta["fit"]["expected_loss"],
        "prior_weight": joint.prior_weight,
        "sensitivity": joint.sensitivity,
        "consistency": joint.consistency,
        "judge": profile.meta.get("judge"),
        "depth": profile.meta.get("depth"),
        "multipv": profile.meta.get("multipv"),
    }


def fitted_numbers(fits: list[dict[str, Any]], command: str) -> Fitted:
    """The rating line and the shipped parameters across the experts' ``fits``
    (:func:`expert_fits`), rounded as the engine reads them, with their provenance (``command``:
    what made them)."""
    if len(fits) < 3:
        raise ProfileError(
            f"{len(fits)} {SYSTEM}-rated profiled casebases: the line needs three at least"
        )
    rating = np.array([f["rating"] for f in fits], float)
    log_loss = np.log([100 * f["expected_loss"] for f in fits])
    b, a = np.polyfit(log_loss, rating, 1)
    spread = float(np.sqrt(((rating - (a + b * log_loss)) ** 2).sum() / (len(fits) - 2)))
    slope, intercept = np.polyfit(
        rating - SENSITIVITY_CENTRE, np.log([f["sensitivity"] for f in fits]), 1
    )
    judges = sorted({f"{f['judge']} at depth {f['depth']}, MultiPV {f['multipv']}" for f in fits})
    provenance = {
        "command": command,
        **made_stamp(),
        "judge": "; ".join(judges),
        "rating_system": SYSTEM,
        "profiles": fits,
    }
    return Fitted(
        (float(round(a)), float(round(b))),
        float(round(spread)),
        round(float(np.median([f["prior_weight"] for f in fits])), 2),
        round(float(np.median([f["consistency"] for f in fits])), 2),
        (round(float(intercept), 2), round(float(slope), 6), SENSITIVITY_CENTRE),
        provenance,
    )


def _unchanged(path: Path, made: dict[str, Any]) -> bool:
    """Whether the file at ``path`` already holds ``made`` but for the time it was made."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    timeless = [
        {**f, "provenance": {k: v for k, v in f.get("provenance", {}).items() if k != "made"}}
        for f in (old, made)
    ]
    return timeless[0] == timeless[1]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (1 with a message on stderr on bad input)."""
    parser = argparse.ArgumentParser(
        prog="python -m profiling.fitted",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "casebases",
        nargs="+",
        type=Path,
        metavar="FILE.npz",
        help="profiled casebases (their profile files beside them are skipped as arguments)",
    )
    parser.add_argument(
        "--registry",
        type=Path,
        default=PROJECT_ROOT / "data" / "experts.tsv",
        help="the experts' registry: each casebase's rating system by its file name",
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="FITTED.json", help="the file to write"
    )
    args = parser.parse_args(argv)
    try:
        systems = rating_systems(args.registry)
        fits = []
        for path in casebase_files(args.casebases):
            if systems.get(path.stem) != SYSTEM:
                continue
            casebase = Casebase.load(path)
            if casebase.profile is None or casebase.elo is None:
                raise ProfileError(
                    f"{path}: no usable error profile ({casebase.profile_problem or 'none'})"
                    " or no rating"
                )
            fits.append(expert_fits(casebase))
        command = " ".join(
            ["python -m profiling.fitted", *(sys.argv[1:] if argv is None else argv)]
        )
        fitted = fitted_numbers(fits, command)
        if _unchanged(args.out, fitted.to_json()):
            # its time alone would differ: the file stays, so that the profiles it makes stale are
            # not refitted
            print(f"{args.out}: unchanged (the same numbers from the same profiles)")
            return 0
        write_atomic(args.out, json.dumps(fitted.to_json(), indent=1, sort_keys=True) + "\n")
    except (OSError, CasebaseError, ProfileError) as exc:
        print(f"profiling.fitted: error: {exc}", file=sys.stderr)
        return 1
    print(
        f"rating line {fitted.rating_line}, spread {fitted.rating_spread}, prior weight"
        f" {fitted.prior_weight}, consistency {fitted.consistency}, sensitivity line"
        f" {fitted.sensitivity_line}: written to {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
