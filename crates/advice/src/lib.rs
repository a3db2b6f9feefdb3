//! iolab-advice: benchmark pitfall checks over a RunResult.
