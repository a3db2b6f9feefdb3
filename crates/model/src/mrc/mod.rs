//! Miss-ratio curves (owner: trace/mrc helper).
