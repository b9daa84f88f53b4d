"""``python -m neardup ARGS``: the neardup command line, in this interpreter."""

import logging
import sys

from ._neardup import NeardupError, run


class _Terminal(logging.Formatter):
    """The binary's stderr: plain lines, ``warning: `` and ``error: `` before the others."""

    def format(self, record: logging.LogRecord) -> str:
        msg = record.getMessage()
        if record.levelno >= logging.ERROR:
            return f"error: {msg}"
        if record.levelno >= logging.WARNING:
            return f"warning: {msg}"
        return msg


def main(argv=None) -> int:
    """Runs the command line ``argv`` (default: ``sys.argv[1:]``); returns the exit status the
    ``neardup`` binary would (0, or 2 for an error or an input that could not be read)."""
    args = list(sys.argv[1:] if argv is None else argv)
    log = logging.getLogger("neardup")
    if not log.handlers:
        # Messages on stderr as the binary shows them, unless the host set up its own.
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_Terminal())
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    try:
        return 0 if run(args) else 2
    except NeardupError as e:
        text = str(e)
        print(text if text.startswith("error") else f"error: {text}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
