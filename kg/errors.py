"""The one exception family of kg.

Every error a user can cause is a :class:`KGError` whose message names the offending value
and says what to do; the CLI prints it as one line and exits non-zero.
"""


class KGError(Exception):
    """Base class of every error kg raises on purpose."""


class InputError(KGError):
    """An input file is missing or unreadable as a whole."""


class ConfigError(KGError):
    """A pipeline file, setting or option is invalid."""


class StoreError(KGError):
    """A graph store cannot be opened, written or queried."""
