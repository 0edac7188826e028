//! Draws one incident scenario and writes its inputs and `truth.json`.
//!
//! `cargo run --release --example scenarios -- --scenario NAME --seed N --out DIR`
//! (`--list` prints the scenario names).

mod gen;

fn main() {
    eprintln!("scenarios: not written yet");
    std::process::exit(2);
}
