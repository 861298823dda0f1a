"""Frozen evaluation splits of the benchmark data (ids in text files) and the script that draws them."""
