"""iolab's exceptions. Every message is the one line the ``iolab`` CLI prints for the same
fault (naming the file, record, line or option and what was expected)."""


class Error(Exception):
    """Base class of every error iolab raises (besides ValueError/TypeError for bad
    arguments)."""


class InputError(Error, ValueError):
    """An input that cannot be used: missing, not a regular file (a FIFO, a device, a
    directory), too large, or an out-of-range option value."""


class TraceError(Error):
    """A trace that cannot be read: unknown format, malformed record (with its number)."""


class ModelError(Error):
    """A simulation that cannot be set up: unknown policy, bad tier or cache size."""


class JobError(Error):
    """A job file or option fio or iolab would refuse (with file:line)."""


class RunError(Error):
    """A run that failed (a target, an engine, an I/O error)."""


class CalibrateError(Error):
    """A calibration or a prediction that failed (target, budget, profile)."""


class ResultError(Error):
    """A result file that is not iolab's or fio's JSON/json+ or a known interval log."""
