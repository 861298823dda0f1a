"""The graph store: host-tuple graph in Redis, published rank epochs, rank queries."""
