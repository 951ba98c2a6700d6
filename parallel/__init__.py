"""Running work in parallel: the local process pool and the Ray cluster."""
