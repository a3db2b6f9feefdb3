//! iolab-core's integration tests: each binary is its own process, so the process-wide stop
//! request and its watchdog can be exercised without touching the unit tests' state.

mod watchdog;
