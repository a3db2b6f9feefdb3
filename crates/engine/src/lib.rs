//! iolab-engine: real I/O engines (io_uring, libaio, psync, sync, null) and the worker loop.
