"""``python -m neardup ARGS``: the neardup command line, in this interpreter."""

import sys

from ._neardup import NeardupError, run


def main(argv=None) -> int:
    """Runs the command line ``argv`` (default: ``sys.argv[1:]``); returns the exit status the
    ``neardup`` binary would (0, or 2 for an error or an input that could not be read)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return 0 if run(args) else 2
    except NeardupError as e:
        text = str(e)
        print(text if text.startswith("error") else f"error: {text}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
