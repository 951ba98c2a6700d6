"""Training the style model (needs torch: ``pip install -e '.[train]'``); playing never imports this."""
