//! iolab-data: buffer contents, compressibility and dedupe measurement, verification.
