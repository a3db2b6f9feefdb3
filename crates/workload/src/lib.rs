//! iolab-workload: deterministic I/O request streams from fio jobs.
