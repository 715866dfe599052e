//! Prints the raw and canonical counts of a bound: `cargo run --release -p webmcp-generator
//! --example count -- small`.
fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "tiny".into());
    let b = webmcp_generator::Bound::parse(&arg).unwrap_or_else(|e| panic!("{e}"));
    let t = std::time::Instant::now();
    let c = webmcp_generator::count(&b);
    println!("{b}: {} raw, {} canonical, {:.2} s", c.raw, c.canonical, t.elapsed().as_secs_f64());
}
