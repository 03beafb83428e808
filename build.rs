//! Build script: marks the build when `../shared/data` (the corpus beside
//! the project) is absent, so that the corpus tests are reported as ignored
//! rather than passed: `#[cfg_attr(shared_data_absent, ignore = "...")]`.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(shared_data_absent)");
    let data = Path::new("../shared/data");
    // The corpus appearing or going changes `..` (its parent's parent).
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=../shared");
    if !data.is_dir() {
        println!("cargo::rustc-cfg=shared_data_absent");
    }
}
