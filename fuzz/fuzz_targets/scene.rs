#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dem_fuzz::scene(data));
