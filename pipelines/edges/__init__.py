"""The edge sink: analysed pages → the graph store, written from one background thread (``sink.EdgeSink``)."""
