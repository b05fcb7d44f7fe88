"""Environment variables read as booleans."""
import os

_ON = frozenset(("1", "true", "yes", "on"))
_OFF = frozenset(("0", "false", "no", "off"))


def envvar_bool(name, default=False):
    """The environment variable `name` as a bool.

    Unset, empty or only blanks: `default` (returned as given).  ``1``, ``true``, ``yes``, ``on``
    mean True and ``0``, ``false``, ``no``, ``off`` False, in any case and with blanks around
    them; another integer is True unless it is zero (``2``, ``-0``, ``00``).  Anything else is
    True: the variable is set, and a typo in a switch read at import time should not fail the
    import.
    """
    value = os.environ.get(name)
    if value is None:
        return default
    word = value.strip().lower()
    if not word:
        return default
    if word in _ON:
        return True
    if word in _OFF:
        return False
    try:
        return int(word) != 0
    except ValueError:
        return True
