//! iolab-stats: latency histograms, interval series, diskstats sampling, RunResult.
