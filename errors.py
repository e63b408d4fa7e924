"""The user-error family: bad input from whoever drives kernelwright (a flag, a config value, a
task or project file). The CLI catches `UserError` once, prints its one line and exits 2; library
callers get the exception (a `ValueError`, as Python's own bad-argument errors are). Our own bugs
are never `UserError`: they keep their traceback."""
from __future__ import annotations


class UserError(ValueError):
    """Bad input. `str(err)` is the whole message: what is wrong, the value, and a hint."""

    exit_code = 2


class ConfigError(UserError):
    """A setting (flag, environment variable or config file value) that cannot be used."""
