"""The command line's own error: a wrong combination of flags (exit status 2)."""


class UsageError(Exception):
    """The flags given do not make a valid command; the message says what to give."""
