"""The offline PageRank solver the benchmarks and tests compare the live ranker against: ``pagerank.solve`` over a
``HostGraph`` in memory, by residual pushing (one partition, the live ranker's kernels) or Kohlschütter's
host-partitioned Gauss–Seidel with aggregated inter-partition votes (``gauss_seidel``, ``inlink_csr``, ``partitions``)."""
