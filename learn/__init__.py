"""Training the style model (needs torch: ``pip install -e '.[train]'``), and the chooser's records
(:mod:`learn.chooser`, no torch); playing never imports this."""
