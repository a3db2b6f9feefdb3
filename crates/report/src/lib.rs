//! iolab-report: exporters over RunResult: text, fio JSON, JSON Lines, fio logs.
