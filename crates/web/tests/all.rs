//! Integration tests of goldfish-web: real stores in temporary directories, pages over real
//! HTTP (a server bound to a free loopback port, raw requests on a TCP socket).

mod util;

mod edges;
mod http;
mod pages;
