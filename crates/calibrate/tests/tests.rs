//! Integration tests of iolab-calibrate.
