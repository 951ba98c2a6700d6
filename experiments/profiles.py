"""The shipped experts' error profiles side by side, and the constants fitted across them.

    python -m experiments.profiles casebases/*.npz

For every casebase with an error profile (``python -m profiling``): its rating (the
median of the expert's own ratings in its games), the judged positions, the mean centipawn loss,
the share of mistakes and of the judge's first choices, Regan's two parameters fitted alone, the
rating they imply and, with the casebase's style model (option Model auto), the three parameters
of the calibrated choice (engine.strength.calibration). Then, over the FIDE-rated experts
(data/experts.tsv): the rating line of engine/strength/rating.py (RATING_LINE, RATING_SPREAD) fitted
anew, the Spearman correlations of rating with each statistic, and the shipped parameters of
engine/strength/calibration.py (SHIPPED_*) as they come out of these fits (profiling.fitted's, which
``make fitted`` writes to engine/strength/models/fitted.json).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

import numpy as np

from casebase.format import Casebase
from common.paths import PROJECT_ROOT as ROOT
from common.stats import spearman
from engine.strength.calibration import calibrate
from engine.strength.profile import Profile
from engine.strength.rating import rating_of
from engine.style.loader import load_model
from engine.style.personal import casebase_files, choose_model
from profiling.fitted import expert_fits, fitted_numbers


def systems() -> dict[str, str]:
    """Shipped expert file id -> rating system (FIDE, FICS, Lichess)."""
    with open(ROOT / "data" / "experts.tsv", newline="", encoding="utf-8") as f:
        return {row["file"]: row["rating_system"] for row in csv.DictReader(f, delimiter="\t")}


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.profiles",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("casebases", nargs="+", type=Path)
    args = parser.parse_args()
    rows = []
    # not the profiles, models and embeddings beside them
    for path in casebase_files(args.casebases):
        casebase = Casebase.load(path)
        profile = Profile.of(casebase)
        if profile is None or casebase.elo is None:
            continue
        choice = choose_model(casebase)
        model = choice.model or load_model(choice.path)
        calibration = calibrate(casebase, model)
        meta = profile.meta
        rows.append(
            {
                "id": path.stem,
                "expert": casebase.expert,
                "rating": casebase.elo,
                "system": systems().get(path.stem, "?"),
                "positions": meta["positions"],
                "cp": meta["all"]["mean_cp_loss"],
                "mistakes": meta["all"]["mistakes"],
                "first": meta["all"]["first_choice"],
                "s": meta["fit"]["sensitivity"],
                "c": meta["fit"]["consistency"],
                "loss": meta["fit"]["expected_loss"],
                "implied": meta["rating"]["implied"],
                "low": meta["rating"]["low"],
                "high": meta["rating"]["high"],
                # profiles stored before the bootstrap interval was kept have only the widened one
                "boot": (
                    meta["rating"].get("bootstrap_low", math.nan),
                    meta["rating"].get("bootstrap_high", math.nan),
                ),
                "joint": calibration.model,
                "casebase": casebase,
            }
        )
    rows.sort(key=lambda r: r["rating"])
    print(
        "| expert | system | rating | positions | mean loss cp | mistakes % | first choice % | s |"
        " c | expected loss % | implied rating (95 %, the positions' bootstrap) | (95 %, widened"
        " by the line's spread) | with the prior: weight, s, c |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|")
    for r in rows:
        j = r["joint"]
        print(
            f"| {r['expert']} | {r['system']} | {r['rating']} | {r['positions']} | {r['cp']:.1f} |"
            f" {100 * r['mistakes']:.1f} | {100 * r['first']:.1f} | {r['s']:.4f} | {r['c']:.2f} |"
            f" {100 * r['loss']:.2f} | {r['implied']:.0f} ({r['boot'][0]:.0f}..{r['boot'][1]:.0f})"
            f" | {r['low']:.0f}..{r['high']:.0f} | {j.prior_weight:.2f}, {j.sensitivity:.4f},"
            f" {j.consistency:.2f} |"
        )
    fide = [r for r in rows if r["system"] == "FIDE"]
    if len(fide) < 3:
        print("\nfewer than three FIDE-rated profiles: no line fitted")
        return 0
    rating = np.array([r["rating"] for r in fide], float)
    fitted = fitted_numbers(
        [expert_fits(r["casebase"]) for r in fide], "python -m experiments.profiles"
    )
    print(f"\nover the {len(fide)} FIDE-rated experts (python -m profiling.fitted writes these):")
    print(
        f"  RATING_LINE = {fitted.rating_line}  RATING_SPREAD = {fitted.rating_spread}"
        f"  (now: rating_of(1 %) = {rating_of(0.01):.0f})"
    )
    for name, key, sign in (
        ("mean loss", "cp", -1),
        ("mistakes", "mistakes", -1),
        ("first choice", "first", 1),
        ("implied rating", "implied", 1),
        ("s", "s", -1),
        ("c", "c", 1),
    ):
        print(
            f"  Spearman of rating and {name}:"
            f" {spearman(list(rating), [r[key] for r in fide]):+.2f} (a better player:"
            f" {'higher' if sign > 0 else 'lower'})"
        )
    joint = [r["joint"] for r in fide]
    print(
        f"  SHIPPED_PRIOR_WEIGHT = {fitted.prior_weight}  SHIPPED_CONSISTENCY ="
        f" {fitted.consistency}  SHIPPED_SENSITIVITY_LINE = {fitted.sensitivity_line}  (Spearman of"
        f" rating and the joint s: {spearman(list(rating), [j.sensitivity for j in joint]):+.2f},"
        f" e^line at 2500: {math.exp(fitted.sensitivity_line[0]):.4f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
