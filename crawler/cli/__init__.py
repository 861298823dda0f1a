"""The ``rankcrawl`` command line: every subcommand, and the shared options and one-line errors."""
