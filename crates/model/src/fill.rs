//! Cache-fill mathematics (owner: trace/mrc helper).
