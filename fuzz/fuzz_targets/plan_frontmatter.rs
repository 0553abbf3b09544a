//! Fuzz target: the plan parser never panics, and a plan it reads formats and parses back
//! equal.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(plan) = goldfish_store::parse_plan(text, "fuzz", "plan") else {
        return;
    };
    let formatted = goldfish_store::format_plan(&plan);
    let again =
        goldfish_store::parse_plan(&formatted, "fuzz", "plan").expect("a formatted plan parses");
    assert_eq!(again, plan, "parse → format → parse is stable");
});
