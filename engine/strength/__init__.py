"""The expert's strength: Regan's error model and its fit, the rating line, the stored error profile
read as losses and phases, the prior times the expert's error model (the calibrated choice), the
chooser, and each expert's tendencies (strength.md). The prior they weigh is
:mod:`engine.style`'s."""
