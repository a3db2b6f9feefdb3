//! iolab-trace: block-trace readers and writers.
