//! The crate's one integration-test binary.

use std::sync::LazyLock;

use goldfish_redact::Redactor;

mod kinds;
mod props;
mod table;

/// One redactor for every test: building one compiles the whole table.
fn redactor() -> &'static Redactor {
    static REDACTOR: LazyLock<Redactor> = LazyLock::new(Redactor::default);
    &REDACTOR
}
