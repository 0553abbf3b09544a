//! Integration tests: setup and doctor on real files in temporary directories.

mod apply;
mod doctor;
mod properties;
