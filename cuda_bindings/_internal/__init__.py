"""Private modules at the paths where the reference package keeps them, for libraries that
probe them (the entry-point addresses a library resolved)."""
