//! Fuzz the result reader (`iolab report`, `plot`, `compare`'s charts): arbitrary bytes as a
//! result file, then, when they are one, the report built and drawn as HTML. Any panic, and
//! any input that takes libFuzzer's `-timeout` (an endless axis search), is a bug: bad input
//! must come back as a `VizError`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = iolab_viz::Input::from_bytes(std::path::Path::new("fuzz.json"), data) else {
        return;
    };
    let _ = iolab_viz::html(&[input]);
});
