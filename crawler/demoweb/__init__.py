"""A generated multi-host web with ground truth, served on 127.0.0.1 (the demo and the tests)."""
