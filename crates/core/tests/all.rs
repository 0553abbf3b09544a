//! The one integration-test binary of goldfish-core (see the modules for what each covers).

mod locks;
mod terminal;

/// What every test returns.
pub type TestResult = Result<(), Box<dyn std::error::Error>>;
